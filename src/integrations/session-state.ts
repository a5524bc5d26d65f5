/**
 * What a hook announced in one host session, so a skill is suggested once per conversation: a
 * JSON file per session id under `<cache root>/sessions/`, forgotten once the conversation is
 * compacted or its transcript changes. Private (0700/0600) and bounded: a save that adds a file
 * prunes old ones. A missing, damaged or hostile file is no memory; a failed save is returned.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { shortHash } from '../util/hash.js';
import { parseJsonQuietly } from '../util/json-file.js';
import { mkdirPrivate, writeFileAtomic } from '../vector-index/atomic-file.js';

/** Names per session (oldest forgotten first), files kept (least recently written go first), a session's age, a file's size, a name's length. */
const SESSION_STATE_DEFAULTS = Object.freeze({ maxNames: 200, maxFiles: 500, maxAgeMs: 7 * 86_400_000, maxFileBytes: 64 * 1024, maxNameChars: 256 });

export interface SessionStateOptions {
  /** The folder holding one file per session (`sessionsDir(cacheRoot)`). */
  readonly dir: string;
  readonly maxNames?: number;
  readonly maxFiles?: number;
  readonly maxAgeMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

/** Where a conversation stands: announcements made before a change of either are forgotten. */
export type ConversationMark = { readonly transcript: string; readonly compactions: number };

type SessionFile = ConversationMark & { readonly version: 1; readonly announced: readonly string[] };

export function sessionsDir(cacheRoot: string): string {
  return path.join(cacheRoot, 'sessions');
}

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

function asSessionFile(value: unknown, maxNames: number): SessionFile | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const data = value as Partial<SessionFile>;
  if (data.version !== 1 || typeof data.transcript !== 'string' || !Number.isSafeInteger(data.compactions) || (data.compactions as number) < 0)
    return undefined;
  if (!Array.isArray(data.announced) || data.announced.length > maxNames) return undefined;
  if (!data.announced.every((name) => typeof name === 'string' && name.length <= SESSION_STATE_DEFAULTS.maxNameChars)) return undefined;
  return data as SessionFile;
}

export class SessionState {
  readonly file: string;
  readonly #options: Required<Omit<SessionStateOptions, 'now'>> & { readonly now: () => number };
  readonly #mark: ConversationMark;
  /** Insertion-ordered: the oldest announcement first, so the bound drops it first. */
  readonly #announced: Set<string>;
  /** No file was read at open: the save adds one, and prunes. */
  readonly #adds: boolean;

  private constructor(file: string, mark: ConversationMark, announced: Iterable<string>, adds: boolean, options: SessionStateOptions) {
    this.file = file;
    this.#adds = adds;
    this.#options = { ...SESSION_STATE_DEFAULTS, now: Date.now, ...options };
    this.#mark = mark;
    this.#announced = new Set(announced);
  }

  /** The memory of session `sessionId`; empty when none was kept, it is unreadable, or the conversation moved past `mark`. */
  static open(sessionId: string, mark: ConversationMark, options: SessionStateOptions): SessionState {
    const file = path.join(options.dir, `${shortHash(sessionId)}.json`);
    const saved = readSmallFile(file, SESSION_STATE_DEFAULTS.maxFileBytes);
    let announced: readonly string[] = [];
    if (saved !== undefined) {
      const data = asSessionFile(parseJsonQuietly(saved), options.maxNames ?? SESSION_STATE_DEFAULTS.maxNames);
      if (data && data.transcript === mark.transcript && data.compactions === mark.compactions) announced = data.announced;
    }
    return new SessionState(file, mark, announced, saved === undefined, options);
  }

  /** Skills announced earlier in this conversation. */
  get announced(): ReadonlySet<string> {
    return this.#announced;
  }

  remember(names: Iterable<string>): void {
    for (const name of names) {
      if (name.length > SESSION_STATE_DEFAULTS.maxNameChars) continue;
      this.#announced.delete(name);
      this.#announced.add(name);
    }
  }

  /** Writes the memory (atomically, 0600), and prunes old sessions when it adds a file; a failure is returned, never thrown. */
  save(): Error | undefined {
    const names = [...this.#announced].slice(-this.#options.maxNames);
    const data: SessionFile = { version: 1, transcript: this.#mark.transcript, compactions: this.#mark.compactions, announced: names };
    try {
      mkdirPrivate(this.#options.dir);
      writeFileAtomic(this.file, `${JSON.stringify(data)}\n`, { durable: false });
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
    if (this.#adds) this.#prune();
    return undefined;
  }

  /** Removes session files past `maxAgeMs` and beyond the newest `maxFiles`; best effort. */
  #prune(): void {
    const { dir, maxAgeMs, maxFiles } = this.#options;
    const now = this.#options.now();
    let names: string[];
    try {
      names = readdirSync(dir).filter((name) => name.endsWith('.json'));
    } catch {
      return;
    }
    const files: { file: string; mtime: number }[] = [];
    for (const name of names) {
      const file = path.join(dir, name);
      try {
        files.push({ file, mtime: statSync(file).mtimeMs });
      } catch {
        // Removed meanwhile by another hook.
      }
    }
    files.sort((a, b) => b.mtime - a.mtime);
    files.forEach(({ file, mtime }, i) => {
      if (file === this.file || (i < maxFiles && now - mtime <= maxAgeMs)) return;
      try {
        rmSync(file, { force: true });
      } catch {
        // Another hook may be pruning too.
      }
    });
  }
}

/** A regular file's text, not following a symlink; undefined when missing, special or larger than `maxBytes`. */
function readSmallFile(file: string, maxBytes: number): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > maxBytes) return undefined;
    return readFileSync(fd, 'utf8');
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
