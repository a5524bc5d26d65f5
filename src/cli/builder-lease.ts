import { randomUUID } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { processAlive } from '../util/process-alive.js';

/** A builder's lease is spent after this long even if its pid still runs (hung, or the pid reused). */
const BUILDER_LEASE_MS = 30 * 60_000;

/**
 * Beside the index folder: `builder`, the builders' lease folder; `warming` and `snapshot`, the markers of a
 * hook that started a build (see `indexInBackground`); `built`, touched by a build once its catalog is saved.
 */
export function besideIndex(indexDir: string, kind: 'builder' | 'warming' | 'snapshot' | 'built'): string {
  return `${indexDir}.${kind}`;
}

/** Writes the marker `file` (the time now, then `content`), private to the user; false when it cannot be written. */
export function writeMarker(file: string, content?: string): boolean {
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, `${new Date().toISOString()}\n${content === undefined ? '' : `${content}\n`}`, { mode: 0o600 });
    chmodSync(file, 0o600);
    return true;
  } catch {
    return false;
  }
}

/**
 * One background builder per index folder, across processes. The folder holds numbered lease files
 * (pid, time taken); the highest is current. The next number is taken only when its holder is gone
 * (pid dead, or older than `maxAgeMs`), by hard-linking a complete file to it, which fails when the
 * name exists: of two processes that found a lease stale one wins, and no reader sees half a lease.
 */
export class BuilderLease {
  readonly #file: string;

  private constructor(file: string) {
    this.#file = file;
  }

  /** The lease in folder `dir` for this process, or undefined when a live holder has it (or it cannot be written). */
  static claim(dir: string, { maxAgeMs } = { maxAgeMs: BUILDER_LEASE_MS }): BuilderLease | undefined {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const numbers = readdirSync(dir)
        .filter((name) => /^\d{1,15}$/.test(name))
        .map(Number);
      const top = numbers.length === 0 ? 0 : Math.max(...numbers);
      if (top > 0 && held(path.join(dir, String(top)), maxAgeMs)) return undefined;
      const file = path.join(dir, String(top + 1));
      if (!writeLinked(dir, file, process.pid)) return undefined;
      // Older leases are spent; a reader that still lists one finds the next number taken.
      for (const number of numbers) rmSync(path.join(dir, String(number)), { force: true });
      return new BuilderLease(file);
    } catch {
      return undefined;
    }
  }

  /** The lease now names `pid` (the builder this process started), replaced in one rename. */
  handTo(pid: number): void {
    const temp = `${path.dirname(this.#file)}/.${randomUUID()}`;
    try {
      writeFileSync(temp, leaseText(pid), { mode: 0o600 });
      renameSync(temp, this.#file);
    } catch {
      rmSync(temp, { force: true });
    }
  }

  /** Gives the lease up (no builder was started). */
  release(): void {
    rmSync(this.#file, { force: true });
  }
}

function leaseText(pid: number): string {
  return `${pid}\n${Date.now()}\n`;
}

/** Writes a lease for `pid` to `file` unless `file` exists; false when it does. */
function writeLinked(dir: string, file: string, pid: number): boolean {
  const temp = path.join(dir, `.${randomUUID()}`);
  writeFileSync(temp, leaseText(pid), { mode: 0o600 });
  try {
    linkSync(temp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}

/** True while the lease in `file` names a live process and is younger than `maxAgeMs`. */
function held(file: string, maxAgeMs: number): boolean {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // Released or spent meanwhile: the next number decides.
    return false;
  }
  const [pidText, takenText] = text.split('\n');
  const pid = Number(pidText);
  const taken = Number(takenText);
  return Number.isSafeInteger(pid) && pid > 0 && Number.isFinite(taken) && Date.now() - taken <= maxAgeMs && processAlive(pid);
}
