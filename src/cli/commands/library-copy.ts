/**
 * The copy behind `library add`: only regular files and folders inside the source tree are
 * copied. A symbolic link is followed only when its target lies inside the tree (a link to
 * `~/.ssh/id_rsa` or `/usr/share` in a cloned repository is skipped with a warning); a folder
 * reached twice (a link loop) is copied once; FIFOs, sockets and devices are skipped. Sizes,
 * entries and depth are capped. Skills are copied into a hidden staging folder inside the
 * library and renamed into place only when every copy succeeded, so nothing partial remains.
 */
import {
  closeSync,
  constants,
  copyFileSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
} from 'node:fs';
import path from 'node:path';
import { SkillSearchError } from '../../errors.js';
import { within } from '../../util/paths.js';

export interface CopyLimits {
  /** Largest single file copied; a larger one is skipped with a warning. */
  readonly maxFileBytes: number;
  /** Most bytes copied by one `library add`; past it the add fails and nothing is kept. */
  readonly maxTotalBytes: number;
  /** Most files and folders copied by one `library add`. */
  readonly maxEntries: number;
  /** Deepest folder nesting copied below a skill folder. */
  readonly maxDepth: number;
}

export const DEFAULT_COPY_LIMITS: CopyLimits = Object.freeze({
  maxFileBytes: 20 * 1024 * 1024,
  maxTotalBytes: 100 * 1024 * 1024,
  maxEntries: 10_000,
  maxDepth: 16,
});

/** What a `library add` staged, and the warnings met on the way. */
export class LibraryStage {
  readonly warnings: string[] = [];
  readonly #library: string;
  readonly #limits: CopyLimits;
  #dir: string | undefined;
  #bytes = 0;
  #entries = 0;

  constructor(library: string, limits: CopyLimits = DEFAULT_COPY_LIMITS) {
    this.#library = library;
    this.#limits = limits;
  }

  /**
   * Copies `from` (a skill folder or one `.md` file inside the tree `root`) into the staging
   * folder as `name`; returns its staged path. Throws a one-line error past the total caps.
   */
  copy(from: string, root: string, name: string): string {
    this.#dir ??= mkdtempSync(path.join(this.#library, '.skill-search-add-'));
    const realRoot = realpathSync(root);
    const target = path.join(this.#dir, name);
    this.#copyEntry(from, target, realRoot, new Set(), 0);
    return target;
  }

  /** Moves each staged skill to its place in the library, then removes the staging folder. */
  commit(placed: readonly { staged: string; target: string }[]): void {
    for (const { staged, target } of placed) renameSync(staged, target);
    this.discard();
  }

  discard(): void {
    if (this.#dir !== undefined) rmSync(this.#dir, { recursive: true, force: true });
    this.#dir = undefined;
  }

  #copyEntry(from: string, to: string, realRoot: string, seen: Set<string>, depth: number): void {
    let real: string;
    try {
      real = realpathSync(from);
    } catch (error) {
      this.warnings.push(`skipped ${from}: ${(error as NodeJS.ErrnoException).code === 'ELOOP' ? 'a symbolic link loop' : 'a broken symbolic link'}`);
      return;
    }
    if (!within(real, realRoot)) {
      this.warnings.push(`skipped ${from}: links outside the source folder (to ${real})`);
      return;
    }
    const stats = lstatSync(real);
    if (stats.isDirectory()) {
      if (seen.has(real)) {
        this.warnings.push(`skipped ${from}: the folder was already copied (a symbolic link loop)`);
        return;
      }
      if (depth > this.#limits.maxDepth) {
        this.warnings.push(`skipped ${from}: nested deeper than ${this.#limits.maxDepth} folders`);
        return;
      }
      this.#count(from);
      mkdirSync(to, { mode: 0o755 });
      const below = new Set(seen).add(real);
      for (const entry of readdirSync(real).sort()) {
        if (entry === '.git') continue;
        this.#copyEntry(path.join(from, entry), path.join(to, entry), realRoot, below, depth + 1);
      }
      return;
    }
    if (!stats.isFile()) {
      this.warnings.push(`skipped ${from}: not a regular file`);
      return;
    }
    if (stats.size > this.#limits.maxFileBytes) {
      this.warnings.push(`skipped ${from}: ${stats.size} bytes, larger than the ${this.#limits.maxFileBytes} bytes copied per file`);
      return;
    }
    this.#count(from);
    this.#bytes += stats.size;
    if (this.#bytes > this.#limits.maxTotalBytes) {
      throw new SkillSearchError('BAD_FILE', `${from}: the skills to add exceed ${this.#limits.maxTotalBytes} bytes in all; nothing was added`);
    }
    copyRegularFile(real, to);
  }

  #count(from: string): void {
    this.#entries += 1;
    if (this.#entries > this.#limits.maxEntries) {
      throw new SkillSearchError('BAD_FILE', `${from}: the skills to add hold more than ${this.#limits.maxEntries} files and folders; nothing was added`);
    }
  }
}

/** Copies a file only if it is still a regular file when opened (never blocks on a FIFO swapped in). */
function copyRegularFile(from: string, to: string): void {
  const fd = openSync(from, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOFOLLOW ?? 0));
  try {
    if (!fstatSync(fd).isFile()) throw new SkillSearchError('BAD_FILE', `${from}: changed while being copied; nothing was added`);
  } finally {
    closeSync(fd);
  }
  copyFileSync(from, to);
}
