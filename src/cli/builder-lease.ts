import { randomUUID } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { processAlive } from '../util/process-alive.js';

/** A builder's lease is spent after this long even if its pid still runs (hung, or the pid reused). */
const BUILDER_LEASE_MS = 30 * 60_000;
/** How often a build waiting for another's lease looks again ({@link BuilderLease.claimWhenFree}). */
const LEASE_POLL_MS = 200;

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
      const numbers = leaseNumbers(dir);
      const top = numbers.length === 0 ? 0 : Math.max(...numbers);
      if (top > 0 && heldBy(path.join(dir, String(top)), maxAgeMs) !== undefined) return undefined;
      const file = path.join(dir, String(top + 1));
      if (!writeLinked(dir, file, process.pid)) return undefined;
      // Older leases are spent; a reader that still lists one finds the next number taken.
      for (const number of numbers) rmSync(path.join(dir, String(number)), { force: true });
      return new BuilderLease(file);
    } catch {
      return undefined;
    }
  }

  /**
   * The lease in folder `dir` once no other live process holds it, polled every {@link LEASE_POLL_MS}: `onWait` is told the holder
   * once. A holder that dies (killed) frees it at once, a hung one after `maxAgeMs`; a lease handed to this process (the builder a
   * hook started, {@link handTo}) is this process's. Undefined when the lease cannot be written (an unwritable cache: the caller
   * builds without one). Rejects with an AbortError when `signal` aborts.
   */
  static async claimWhenFree(
    dir: string,
    { signal, onWait, maxAgeMs = BUILDER_LEASE_MS }: { readonly signal?: AbortSignal; readonly onWait?: (pid: number) => void; readonly maxAgeMs?: number },
  ): Promise<BuilderLease | undefined> {
    let told = false;
    // A holder gone between the claim and the look at it: claimed again, a few times, before building without a lease.
    for (let unheld = 0; unheld < 3; ) {
      signal?.throwIfAborted();
      const lease = BuilderLease.claim(dir, { maxAgeMs });
      if (lease !== undefined) return lease;
      const top = topLease(dir, maxAgeMs);
      if (top === undefined) {
        unheld += 1;
        continue;
      }
      if (top.pid === process.pid) return new BuilderLease(top.file);
      if (!told) onWait?.(top.pid);
      told = true;
      await sleep(LEASE_POLL_MS, undefined, { signal });
    }
    return undefined;
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

/** The current lease in folder `dir` and the live process it names, if one does. */
function topLease(dir: string, maxAgeMs: number): { readonly file: string; readonly pid: number } | undefined {
  let numbers: number[];
  try {
    numbers = leaseNumbers(dir);
  } catch {
    return undefined;
  }
  if (numbers.length === 0) return undefined;
  const file = path.join(dir, String(Math.max(...numbers)));
  const pid = heldBy(file, maxAgeMs);
  return pid === undefined ? undefined : { file, pid };
}

function leaseNumbers(dir: string): number[] {
  return readdirSync(dir)
    .filter((name) => /^\d{1,15}$/.test(name))
    .map(Number);
}

/** The pid the lease in `file` names while that process lives and the lease is younger than `maxAgeMs`, else undefined. */
function heldBy(file: string, maxAgeMs: number): number | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // Released or spent meanwhile: the next number decides.
    return undefined;
  }
  const [pidText, takenText] = text.split('\n');
  const pid = Number(pidText);
  const taken = Number(takenText);
  const live = Number.isSafeInteger(pid) && pid > 0 && Number.isFinite(taken) && Date.now() - taken <= maxAgeMs && processAlive(pid);
  return live ? pid : undefined;
}
