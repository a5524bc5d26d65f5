/**
 * The copy behind `library add`: regular files and folders of the source tree, links only to
 * targets inside it (else skipped with a warning), a folder reached twice once; other file types
 * skipped; sizes, entries and depth capped. Skills are staged in a hidden folder in the library
 * and renamed into place only when every copy succeeded.
 */
import {
  chmodSync,
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

const DEFAULT_COPY_LIMITS = Object.freeze({
  /** Largest single file copied; a larger one is skipped with a warning. */
  maxFileBytes: 20 * 1024 * 1024,
  /** Most bytes copied by one `library add`; past it the add fails and nothing is kept. */
  maxTotalBytes: 100 * 1024 * 1024,
  /** Most files and folders copied by one `library add`. */
  maxEntries: 10_000,
  /** Deepest folder nesting copied below a skill folder. */
  maxDepth: 16,
});
type CopyLimits = Readonly<Record<keyof typeof DEFAULT_COPY_LIMITS, number>>;

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

  /** Stages `from` (a skill folder or `.md` file in the tree `root`) as `name`; its staged path. Throws past the total caps. */
  copy(from: string, root: string, name: string): string {
    this.#dir ??= mkdtempSync(path.join(this.#library, '.skill-search-add-'));
    const target = path.join(this.#dir, name);
    this.#copyEntry(from, target, realpathSync(root), new Set(), 0);
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
    copyRegularFile(real, to, stats.mode);
  }

  #count(from: string): void {
    this.#entries += 1;
    if (this.#entries > this.#limits.maxEntries) {
      throw new SkillSearchError('BAD_FILE', `${from}: the skills to add hold more than ${this.#limits.maxEntries} files and folders; nothing was added`);
    }
  }
}

/**
 * Copies a file only if it is still a regular file when opened (never blocks on a FIFO swapped in);
 * the copy is the user's to edit: its permissions `mode`'s plus owner write (exec bits kept).
 */
function copyRegularFile(from: string, to: string, mode: number): void {
  const fd = openSync(from, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOFOLLOW ?? 0));
  try {
    if (!fstatSync(fd).isFile()) throw new SkillSearchError('BAD_FILE', `${from}: changed while being copied; nothing was added`);
  } finally {
    closeSync(fd);
  }
  copyFileSync(from, to);
  chmodSync(to, (mode & 0o777) | 0o200);
}
