import { existsSync, statSync } from 'node:fs';
import { basename, dirname, relative } from 'node:path';
import { watch as chokidarWatch, type FSWatcher } from 'chokidar';
import type { ResolvedWatchOptions } from './options.js';
import { realpathOrSelf, within } from '../util/paths.js';

/** Deepest folder nesting watched below a root (matches the legacy commands scan). */
const WATCH_DEPTH = 8;
/** How often chokidar re-checks a file still being written (polling mode only; see `#settle`). */
const WRITE_POLL_MS = 100;
/** Most folders watched at once, over all roots: each costs an inotify watch (often 8,192 per user). */
export const MAX_WATCHED_DIRS = 4096;
/** Kernel pseudo file systems: never skill folders, and endless to walk (`/proc` changes as the watcher opens files). */
const SYSTEM_DIRS = process.platform === 'linux' ? ['/proc', '/sys', '/dev'] : [];
/** Skipped folders named one by one; past this, one line says further ones are not. */
const MAX_SKIP_REPORTS = 20;
/** A batch is delivered after at most this many quiet windows, even while events keep coming. */
export const MAX_BATCH_WINDOWS = 10;

export interface WatchHandlers {
  /** Called once per coalescing window with every path that changed in it. */
  readonly onChange: (paths: readonly string[]) => void;
  /** Also told, once each, what was not watched: a folder reached twice (a symlink loop), folders past the cap. */
  readonly onError: (error: Error) => void;
}

/** What chokidar watches for a root: the root, or its first missing component (chokidar sees a path appear only when its parent exists). */
function watchPointFor(root: string): string {
  let point = root;
  for (;;) {
    if (existsSync(point)) return point;
    const parent = dirname(point);
    if (parent === point || existsSync(parent)) return point;
    point = parent;
  }
}

/** Inode plus birth time: inodes alone are recycled at once by a delete-then-create. */
function identityOf(path: string): string | undefined {
  try {
    const stats = statSync(path);
    return `${stats.ino}:${stats.birthtimeMs}`;
  } catch {
    return undefined;
  }
}

/**
 * A chokidar watcher over skill roots (`.md` files and folders count): a change counts after `stabilityThreshold` without an event (when
 * polling, chokidar's size polling decides), batched until `coalesceMs` pass quietly, at most {@link MAX_BATCH_WINDOWS} windows.
 * Folders are watched once each by real path (loops and second links skipped), at most {@link MAX_WATCHED_DIRS}.
 */
export class SkillWatcher {
  readonly ready: Promise<void>;
  #roots: readonly string[];
  /** What chokidar is watching now; moves when a root is created or deleted (see watchPointFor). */
  #points: Set<string>;
  /** Identity of each watch point when it was watched: a new one means deleted and recreated. */
  #identities = new Map<string, string | undefined>();
  /** Watch points that chokidar itself reported as added or removed since the last batch. */
  #touchedPoints = new Set<string>();
  #watcher: FSWatcher;
  /** Files added or changed that have not settled yet (native events): path → its timer. */
  readonly #settling = new Map<string, NodeJS.Timeout>();
  #pending = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  /** When the first event of the pending batch arrived. */
  #batchStart = 0;
  /** Real path of each watched folder → the path it was first reached by. */
  #folders = new Map<string, string>();
  /** Watched path → its real path (to forget it when the folder goes). */
  #realOf = new Map<string, string>();
  #capReported = false;
  #skipReports = 0;
  #closing: Promise<void> | undefined;
  readonly #options: ResolvedWatchOptions;
  readonly #handlers: WatchHandlers;

  constructor(roots: readonly string[], options: ResolvedWatchOptions, handlers: WatchHandlers) {
    this.#roots = roots;
    this.#options = options;
    this.#handlers = handlers;
    this.#points = new Set(roots.map(watchPointFor));
    for (const point of this.#points) this.#identities.set(point, identityOf(point));
    // chokidar counts a missing path as read (twice) before it falls back to watching its parent, so its `ready` came
    // before the existing folders were read, and an edit made right after `watch()` resolved was never reported.
    // The missing points are added once the existing ones are read.
    const existing = [...this.#points].filter((point) => existsSync(point));
    const missing = [...this.#points].filter((point) => !existing.includes(point));
    this.#watcher = chokidarWatch(existing, {
      ignoreInitial: true,
      persistent: true,
      usePolling: options.usePolling,
      interval: options.pollInterval,
      binaryInterval: options.pollInterval,
      // With native events a timer per file (#settle) is exact; chokidar's wait polls each file's size.
      awaitWriteFinish: options.usePolling ? { stabilityThreshold: options.stabilityThreshold, pollInterval: WRITE_POLL_MS } : false,
      ignorePermissionErrors: true,
      depth: WATCH_DEPTH,
      ignored: (path, stats) => this.#ignoredByName(path, stats?.isFile() ?? false) || (stats?.isDirectory() === true && !this.#claimFolder(path)),
    });
    // chokidar given no path never says `ready`.
    const read = existing.length === 0 ? Promise.resolve() : new Promise<void>((resolve) => this.#watcher.once('ready', () => resolve()));
    this.ready = read.then(() => {
      const still = missing.filter((point) => this.#points.has(point));
      if (still.length === 0 || this.#closing !== undefined) return;
      this.#watcher.add(still);
      // One created before chokidar's watch of its parent was set raised no event.
      this.#reportLater(still, (point) => existsSync(point));
    });
    this.#watcher.on('all', (event, path) => {
      if (event === 'unlinkDir') this.#forgetFolder(path);
      if ((event === 'add' || event === 'change') && !options.usePolling) this.#settle(path, event);
      else {
        clearTimeout(this.#settling.get(path));
        this.#settling.delete(path);
        this.#record(path, event);
      }
    });
    this.#watcher.on('error', (error) => this.#handlers.onError(error instanceof Error ? error : new Error(String(error))));
  }

  /** Replaces the watched roots (plugins installed or removed). */
  setRoots(roots: readonly string[]): void {
    this.#roots = roots;
    this.#refreshPoints();
  }

  /** Recomputes watch points (chokidar stops following a deleted folder; a deep missing root becomes watchable level by level). */
  #refreshPoints(): void {
    const wanted = new Set(this.#roots.map(watchPointFor));
    const added = [...wanted].filter((point) => !this.#points.has(point));
    // Unwatched only when no root lies on its path any more: chokidar's `unwatch` also ignores everything below it.
    const gone = [...this.#points].filter((point) => !wanted.has(point) && !this.#roots.some((root) => within(root, point) || within(point, root)));
    // A folder deleted and recreated between two batches keeps its path, but chokidar stays bound to the old one; one
    // deleted (its parent kept) is watched again as missing, so that chokidar watches the parent for it to come back.
    const replaced = [...wanted].filter((point) => {
      if (!this.#points.has(point)) return false;
      const identity = identityOf(point);
      const before = this.#identities.get(point);
      if (identity === undefined) return before !== undefined;
      return this.#touchedPoints.has(point) || identity !== before;
    });
    this.#touchedPoints.clear();
    for (const point of gone) {
      this.#points.delete(point);
      this.#identities.delete(point);
    }
    const fresh = [...added, ...replaced];
    for (const point of fresh) {
      this.#points.add(point);
      this.#identities.set(point, identityOf(point));
    }
    if (gone.length + replaced.length > 0) this.#watcher.unwatch([...gone, ...replaced]);
    if (fresh.length > 0) {
      this.#watcher.add(fresh);
      // Files that appear while chokidar reads a re-added folder raise no event (ignoreInitial): report it again once settled.
      this.#reportLater(fresh, () => true);
    }
  }

  /** Queues each of `points` that `due` holds for once a stability wait has passed. */
  #reportLater(points: readonly string[], due: (point: string) => boolean): void {
    const late = setTimeout(() => {
      for (const point of points) if (due(point)) this.#queue(point);
    }, this.#options.stabilityThreshold);
    late.unref();
  }

  /** Idempotent: every call returns the same promise. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      clearTimeout(this.#timer);
      for (const timer of this.#settling.values()) clearTimeout(timer);
      this.#settling.clear();
      this.#pending.clear();
      await this.#watcher.close();
    })();
    return this.#closing;
  }

  /** Whether the folder at `path` may be watched: not when its real path is watched under another path, nor past the cap. */
  #claimFolder(path: string): boolean {
    if (this.#realOf.has(path)) return true;
    const real = realpathOrSelf(path);
    if (SYSTEM_DIRS.some((dir) => within(real, dir))) {
      this.#skipped(`skipped ${path}: a system folder (${real})`);
      return false;
    }
    const first = this.#folders.get(real);
    if (first !== undefined) {
      if (first === path) return true;
      // A second link to a watched folder is skipped quietly (its changes are seen already); a loop is named.
      if (within(realpathOrSelf(dirname(path)), real)) this.#skipped(`skipped ${path}: a symbolic link loop back to ${first}, watched once`);
      return false;
    }
    if (this.#folders.size >= MAX_WATCHED_DIRS) {
      if (!this.#capReported && this.#closing === undefined) {
        this.#capReported = true;
        this.#handlers.onError(
          new Error(`watching at most ${MAX_WATCHED_DIRS} folders; ${path} and further folders are not watched (a link to a large tree?)`),
        );
      }
      return false;
    }
    this.#folders.set(real, path);
    this.#realOf.set(path, real);
    return true;
  }

  #forgetFolder(path: string): void {
    const real = this.#realOf.get(path);
    if (real === undefined) return;
    this.#realOf.delete(path);
    if (this.#folders.get(real) === path) this.#folders.delete(real);
  }

  #skipped(message: string): void {
    if (this.#closing !== undefined || this.#skipReports > MAX_SKIP_REPORTS) return;
    this.#skipReports += 1;
    this.#handlers.onError(new Error(this.#skipReports > MAX_SKIP_REPORTS ? 'more folders skipped; not naming each' : message));
  }

  #ignoredByName(path: string, isFile: boolean): boolean {
    const root = this.#roots.find((candidate) => within(path, candidate));
    if (root === undefined) {
      // Above a root: only the ancestors of a missing root are worth watching.
      return !this.#roots.some((candidate) => within(candidate, path));
    }
    const rel = relative(root, path);
    if (rel === '') return false;
    if (rel.split(/[\\/]/).some((part) => part.startsWith('.') || part === 'node_modules')) return true;
    return isFile && !basename(path).toLowerCase().endsWith('.md');
  }

  /** Records `path` once it has had no event for `stabilityThreshold` (each event restarts the wait). */
  #settle(path: string, event: string): void {
    if (this.#closing !== undefined) return;
    clearTimeout(this.#settling.get(path));
    this.#settling.set(
      path,
      setTimeout(() => {
        this.#settling.delete(path);
        this.#record(path, event);
      }, this.#options.stabilityThreshold),
    );
  }

  #record(path: string, event: string): void {
    if (this.#closing !== undefined) return;
    // A watch point's content changing (a tools file edited) is not the point being replaced.
    const pointTouched = event !== 'change' && this.#points.has(path);
    if (pointTouched) this.#touchedPoints.add(path);
    // A point above a root that appears (`.claude` of a missing `.claude/skills`) is queued too: chokidar reads a new folder
    // before it watches it, so the root created inside it in between may raise no event of its own; the flush moves the point.
    if (pointTouched || this.#roots.some((root) => within(path, root))) this.#queue(path);
  }

  #queue(path: string): void {
    if (this.#closing !== undefined) return;
    const now = Date.now();
    if (this.#pending.size === 0) this.#batchStart = now;
    this.#pending.add(path);
    clearTimeout(this.#timer);
    const deadline = this.#batchStart + this.#options.coalesceMs * MAX_BATCH_WINDOWS;
    this.#timer = setTimeout(() => this.#flush(), Math.max(0, Math.min(this.#options.coalesceMs, deadline - now)));
  }

  #flush(): void {
    this.#timer = undefined;
    const paths = [...this.#pending].sort();
    this.#pending.clear();
    if (paths.length === 0 || this.#closing !== undefined) return;
    this.#refreshPoints();
    this.#handlers.onChange(paths);
  }
}
