/**
 * Garbage collection for a resident process (`skill-search watch`) once quiet after a reindex, whose old catalog
 * V8's old generation keeps until several times the live size, growing RSS with every edit (docs/benchmarks.md).
 */
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { definedOnly } from './defined.js';
import { positiveInteger } from './option-checks.js';

export interface IdleCollectorOptions {
  /** Quiet time after the last {@link IdleCollector.touch} before the heap is looked at. @default 1000 */
  readonly quietMs?: number;
  /** Old-generation growth tolerated since the last collection; past this and `slackPercent` (10) of the live heap, it collects. @default 16 MiB */
  readonly slackBytes?: number;
  readonly slackPercent?: number;
}

const IDLE_COLLECTOR_DEFAULTS = Object.freeze({ quietMs: 1000, slackBytes: 16 * 1024 * 1024, slackPercent: 10 });

/** Touches in a row that never leave `quietMs` of quiet are looked at after this many quiet times. */
const MAX_DELAYS = 10;

/** A full garbage collection, or null where it cannot be had. */
let fullCollection: (() => void) | null | undefined;

/** V8's `gc()`: the global one under `--expose-gc`, else from a new context made while the flag is briefly set. */
function collector(): (() => void) | null {
  if (fullCollection !== undefined) return fullCollection;
  const exposed: unknown = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') {
    fullCollection = () => void exposed();
    return fullCollection;
  }
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    fullCollection = typeof gc === 'function' ? () => void gc() : null;
  } catch {
    fullCollection = null;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  return fullCollection;
}

/** Bytes used in V8's old generation (every heap space but the young one). */
export function oldGenerationBytes(): number {
  let used = 0;
  for (const space of getHeapSpaceStatistics()) if (!space.space_name.startsWith('new_')) used += space.space_used_size;
  return used;
}

/** Collects garbage `quietMs` after a {@link touch} when the old generation grew past the slack (the first touch always collects). */
export class IdleCollector {
  readonly options: Required<IdleCollectorOptions>;
  #timer: NodeJS.Timeout | undefined;
  /** When the pending look was first asked for. */
  #since = 0;
  /** The old generation's size after the last collection. */
  #live: number | undefined;
  #collections = 0;
  #closed = false;

  constructor(options: IdleCollectorOptions = {}) {
    const merged = { ...IDLE_COLLECTOR_DEFAULTS, ...definedOnly(options) };
    for (const key of ['quietMs', 'slackBytes', 'slackPercent'] as const) positiveInteger(key, merged[key]);
    this.options = Object.freeze(merged);
  }

  /** Full collections made so far. */
  get collections(): number {
    return this.#collections;
  }

  /** Work that may have left garbage just ended: look at the heap once quiet. */
  touch(): void {
    if (this.#closed) return;
    const now = performance.now();
    if (this.#timer === undefined) this.#since = now;
    else if (now - this.#since > MAX_DELAYS * this.options.quietMs) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#look(), this.options.quietMs);
    this.#timer.unref();
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #look(): void {
    this.#timer = undefined;
    const collect = collector();
    if (collect === null) return;
    const live = this.#live;
    if (live !== undefined) {
      const slack = Math.max(this.options.slackBytes, (live * this.options.slackPercent) / 100);
      if (oldGenerationBytes() - live <= slack) return;
    }
    collect();
    this.#collections += 1;
    this.#live = oldGenerationBytes();
  }
}
