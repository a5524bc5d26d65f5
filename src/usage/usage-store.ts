/**
 * How much each skill is used in one project, kept in one small JSON file per project: counts decay (half-life `HALF_LIFE_DAYS`);
 * the file is bounded and written atomically; a missing or corrupt file is an empty store, never an error (a hook must not fail on it).
 */
import path from 'node:path';
import { labelledName } from '../util/hash.js';
import { errorMessage } from '../errors.js';
import { readJsonFile } from '../util/json-file.js';
import { isFile } from '../util/paths.js';
import { mkdirPrivate, writeFileAtomic } from '../vector-index/atomic-file.js';

export interface UsageStoreOptions {
  /** Most skills remembered; the least used are dropped first. @default 500 */
  readonly maxSkills?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

/** Days after which a count weighs half (`skill-search stats` says so). */
const HALF_LIFE_DAYS = 14;
/** Most (session, skill) pairs remembered, so a skill seen again in one session's transcript is not counted twice. */
const MAX_SEEN = 2000;

export interface UsageEntry {
  used: number;
  suggested: number;
  /** Suggested in a session that never used it. */
  ignored: number;
  lastUsed?: number;
  lastSuggested?: number;
}

interface UsageFile {
  version: 1;
  project: string;
  /** When the counts were last decayed (ms since epoch). */
  at: number;
  skills: Record<string, UsageEntry>;
  /** `session\0skill` pairs already counted as used, oldest first. */
  usedIn: string[];
  /** `session\0skill` pairs suggested and not (yet) used, oldest first. */
  suggestedIn: string[];
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;
const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

/** The file's data when every field has its type; anything else is treated as no file (the hook loads no schema library). */
function asUsageFile(value: unknown): UsageFile | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const data = value as Partial<UsageFile>;
  if (data.version !== 1 || typeof data.project !== 'string' || !isCount(data.at) || !isStrings(data.usedIn) || !isStrings(data.suggestedIn)) return undefined;
  if (typeof data.skills !== 'object' || data.skills === null) return undefined;
  for (const entry of Object.values(data.skills)) {
    if (!isCount(entry?.used) || !isCount(entry.suggested) || !isCount(entry.ignored)) return undefined;
  }
  return data as UsageFile;
}

/** The file's data; a file that exists but cannot be read as one gives a problem (one line naming it) instead. */
function readUsageFile(file: string): { readonly data?: UsageFile; readonly problem?: string } {
  // No file (or no folder for one, a cache path through a file): nothing to say here; writing it says why it cannot be.
  if (!isFile(file)) return {};
  let value: unknown;
  try {
    value = readJsonFile(file, { missingOk: true });
  } catch (error) {
    return { problem: errorMessage(error) };
  }
  if (value === undefined) return {};
  const data = asUsageFile(value);
  return data === undefined ? { problem: `${file}: not a usage file skill-search ${USAGE_VERSION_NOTE}` } : { data };
}

/** What {@link asUsageFile} reads. */
const USAGE_VERSION_NOTE = 'reads (version 1, with project, at, skills, usedIn and suggestedIn)';

export function usageFileFor(root: string, project: string): string {
  return path.join(root, 'usage', `${labelledName(project, path.resolve(project))}.json`);
}

/** Every operation is linear in the names it is given (plus, for `save`, the skills kept): pairs are insertion-ordered sets. */
export class UsageStore {
  readonly file: string;
  readonly #options: Required<UsageStoreOptions>;
  #data: UsageFile;
  readonly #usedIn: Set<string>;
  #suggestedIn: Set<string>;

  private constructor(file: string, data: UsageFile, options: UsageStoreOptions) {
    this.file = file;
    this.#options = { maxSkills: 500, now: Date.now, ...options };
    this.#data = data;
    this.#usedIn = new Set(data.usedIn);
    this.#suggestedIn = new Set(data.suggestedIn);
    this.#decay();
  }

  /** The store of `project` under `root` (the cache folder). */
  static open(root: string, project: string, options: UsageStoreOptions = {}): UsageStore {
    const file = usageFileFor(root, project);
    const read = readUsageFile(file);
    // Missing or corrupt: start empty (its `at` is moot: it has no counts to decay).
    const data = read.data ?? { version: 1, project: path.resolve(project), at: 0, skills: {}, usedIn: [], suggestedIn: [] };
    // Skill names are keys: keep `__proto__` and friends plain data.
    data.skills = Object.assign(Object.create(null) as Record<string, UsageEntry>, data.skills);
    const store = new UsageStore(file, data, options);
    store.problem = read.problem;
    return store;
  }

  /**
   * Why the file, which exists, was read as empty (not JSON, or not a usage file this version writes), for `stats` to say: the hook
   * carries on without it and its next record replaces it.
   */
  problem: string | undefined;

  #decay(): void {
    const now = this.#options.now();
    const factor = 0.5 ** (Math.max(0, now - this.#data.at) / 86_400_000 / HALF_LIFE_DAYS);
    for (const entry of Object.values(this.#data.skills)) {
      entry.used *= factor;
      entry.suggested *= factor;
      entry.ignored *= factor;
    }
    this.#data.at = now;
  }

  #entry(name: string): UsageEntry {
    this.#data.skills[name] ??= { used: 0, suggested: 0, ignored: 0 };
    return this.#data.skills[name];
  }

  /** Skills the session invoked (from its transcript); each (session, skill) counts once. */
  recordUsed(session: string, names: Iterable<string>): void {
    this.#closeOtherSessions(session);
    const now = this.#options.now();
    for (const name of names) {
      const key = `${session}\0${name}`;
      if (this.#usedIn.has(key)) continue;
      this.#usedIn.add(key);
      this.#suggestedIn.delete(key);
      const entry = this.#entry(name);
      entry.used += 1;
      entry.lastUsed = now;
    }
  }

  /** Skills announced to the session; those it never used count as ignored once another session records something or they fall out of memory. */
  recordSuggested(session: string, names: Iterable<string>): void {
    this.#closeOtherSessions(session);
    const now = this.#options.now();
    for (const name of names) {
      const key = `${session}\0${name}`;
      const entry = this.#entry(name);
      entry.suggested += 1;
      entry.lastSuggested = now;
      if (!this.#usedIn.has(key)) this.#suggestedIn.add(key);
    }
  }

  /** Decayed counts per skill, most used first. */
  entries(): [string, UsageEntry][] {
    return Object.entries(this.#data.skills).sort(([, a], [, b]) => b.used - a.used || b.suggested - a.suggested);
  }

  /** Decayed use counts, for the listing budget (least used lose their descriptions first). */
  usageCounts(): Map<string, number> {
    return new Map(Object.entries(this.#data.skills).map(([name, entry]) => [name, entry.used]));
  }

  #ignore(pair: string): void {
    const entry = this.#data.skills[pair.slice(pair.indexOf('\0') + 1)];
    if (entry) entry.ignored += 1;
  }

  #closeOtherSessions(session: string): void {
    const prefix = `${session}\0`;
    const open = new Set<string>();
    for (const pair of this.#suggestedIn) {
      if (pair.startsWith(prefix)) open.add(pair);
      else this.#ignore(pair);
    }
    this.#suggestedIn = open;
  }

  #bound(): void {
    const { maxSkills } = this.#options;
    dropOldest(this.#suggestedIn, this.#suggestedIn.size - MAX_SEEN, (pair) => this.#ignore(pair));
    dropOldest(this.#usedIn, this.#usedIn.size - MAX_SEEN);
    this.#data.suggestedIn = [...this.#suggestedIn];
    this.#data.usedIn = [...this.#usedIn];
    if (Object.keys(this.#data.skills).length > maxSkills) {
      for (const [name] of this.entries().slice(maxSkills)) delete this.#data.skills[name];
    }
  }

  /** Writes the store (atomically); a failure to write is reported to the caller, never thrown. */
  save(): Error | undefined {
    this.#bound();
    try {
      // Private: file names say which projects exist.
      mkdirPrivate(path.dirname(this.file));
      writeFileAtomic(this.file, `${JSON.stringify(this.#data)}\n`, { durable: false });
      return undefined;
    } catch (error) {
      return error as Error;
    }
  }
}

/** Removes the first (oldest) `count` members of `set`, telling `onDrop` about each. */
function dropOldest(set: Set<string>, count: number, onDrop?: (member: string) => void): void {
  for (const member of [...set].slice(0, Math.max(0, count))) {
    set.delete(member);
    onDrop?.(member);
  }
}
