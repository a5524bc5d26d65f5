/**
 * Soak for the prefetch path: many turns, each started and then aborted at a random moment
 * (before its search is queued, while queued, mid-search, after it settled, or by disposing
 * the handle under a long-lived session signal), against a fake searcher with random latency
 * that sometimes fails and sometimes ignores its signal.
 *
 * Checks: no unhandled rejection; every aborted turn collects null; no abort listener left on
 * any turn or session signal; no timer left behind; nothing pending in the prefetcher; heap
 * growth bounded after a warm-up.
 *
 *   npx tsx scripts/soak-prefetch.ts [--turns 10000] [--seed 1] [--max-latency 8] [--in-flight 8]
 */
import { getEventListeners, setMaxListeners } from 'node:events';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { abortError } from '../src/errors.js';
import { SkillPrefetcher } from '../src/prefetch/prefetcher.js';
import type { SearchHit, SearchRequest, Skill, SkillSearcher } from '../src/types.js';
import { prng as random } from './prng.js';

export interface SoakOptions {
  readonly turns: number;
  readonly seed?: number;
  /** Upper bound of the fake search latency and of the abort delay, in ms. */
  readonly maxLatencyMs?: number;
  /** Turns driven at once (above the prefetcher's concurrency, so the queue is exercised). */
  readonly inFlight?: number;
  readonly concurrency?: number;
  /** Heap check (needs a few thousand turns to mean anything). */
  readonly checkHeap?: boolean;
  /** Allowed heapUsed growth between warm-up and end, in bytes. */
  readonly maxHeapGrowthBytes?: number;
}

export interface SoakReport {
  readonly turns: number;
  readonly seed: number;
  readonly abortMoments: Readonly<Record<AbortMoment, number>>;
  readonly searchesStarted: number;
  readonly searchesCancelled: number;
  readonly lateResults: number;
  readonly nonNullCollects: number;
  readonly unhandledRejections: number;
  readonly leakedListeners: number;
  readonly timersBefore: number;
  readonly timersAfter: number;
  readonly heapBeforeBytes: number | undefined;
  readonly heapAfterBytes: number | undefined;
  readonly gc: boolean;
  readonly elapsedMs: number;
  readonly failures: readonly string[];
  readonly pass: boolean;
}

type AbortMoment = 'sync' | 'soon' | 'random' | 'late' | 'dispose';
const MOMENTS: readonly AbortMoment[] = ['sync', 'soon', 'random', 'late', 'dispose'];

const SKILL: Skill = {
  name: 'pdf',
  description: 'Read PDFs',
  source: 'skills',
  rank: 4,
  path: '/soak/pdf/SKILL.md',
  id: 'pdf',
  body: '# PDF',
  tokenEstimate: 4,
  contentHash: 'soak',
};

/** Random latency; 1 in 10 calls fails, 1 in 10 ignores its signal and resolves late. */
class RandomSearcher implements SkillSearcher {
  started = 0;
  outstanding = 0;
  /** Calls cancelled through their signal mid-search. */
  cancelled = 0;
  /** Calls that ignored their signal and resolved after it aborted. */
  late = 0;
  readonly #rand: () => number;
  readonly #maxLatencyMs: number;

  constructor(rand: () => number, maxLatencyMs: number) {
    this.#rand = rand;
    this.#maxLatencyMs = maxLatencyMs;
  }

  search(_query: string, request?: SearchRequest): Promise<readonly SearchHit[]> {
    this.started += 1;
    this.outstanding += 1;
    const roll = this.#rand();
    const latency = Math.floor(this.#rand() * this.#maxLatencyMs);
    const ignoresAbort = roll < 0.1;
    const fails = roll >= 0.1 && roll < 0.2;
    const signal = request?.signal;
    return new Promise((resolve, reject) => {
      const done = (): void => {
        this.outstanding -= 1;
        signal?.removeEventListener('abort', onAbort);
      };
      const timer = setTimeout(() => {
        done();
        if (signal?.aborted) this.late += 1;
        if (fails) reject(new Error('soak: simulated search failure'));
        else resolve([{ skill: SKILL, score: 0.9, via: ['dense'] }]);
      }, latency);
      const onAbort = (): void => {
        this.cancelled += 1;
        clearTimeout(timer);
        done();
        reject(abortError(signal));
      };
      if (!ignoresAbort) signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
}

function loadGc(): (() => void) | undefined {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === 'function') return existing;
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function heapAfterGc(gc: (() => void) | undefined): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

export async function runPrefetchSoak(options: SoakOptions): Promise<SoakReport> {
  const seed = options.seed ?? 1;
  const maxLatencyMs = options.maxLatencyMs ?? 8;
  const inFlight = options.inFlight ?? 8;
  const checkHeap = options.checkHeap ?? true;
  const maxHeapGrowthBytes = options.maxHeapGrowthBytes ?? 4 * 1024 * 1024;
  const rand = random(seed);
  const searcher = new RandomSearcher(rand, maxLatencyMs);
  const prefetcher = new SkillPrefetcher({ searcher, concurrency: options.concurrency ?? 2, onError: () => {} });
  const session = new AbortController();
  // Every in-flight turn may hold one listener on the shared session signal; that is bounded
  // by `inFlight`, not a leak (the check below verifies they are all removed).
  setMaxListeners(inFlight + 1, session.signal);
  const gc = checkHeap ? loadGc() : undefined;

  let unhandledRejections = 0;
  const onUnhandled = (): void => {
    unhandledRejections += 1;
  };
  process.on('unhandledRejection', onUnhandled);

  const moments: Record<AbortMoment, number> = { sync: 0, soon: 0, random: 0, late: 0, dispose: 0 };
  let leakedListeners = 0;
  let nonNullCollects = 0;
  const timersBefore = activeTimers();
  const warmUp = Math.min(500, Math.floor(options.turns / 10));
  let heapBeforeBytes: number | undefined;
  const started = performance.now();

  const runTurn = async (): Promise<void> => {
    const moment = MOMENTS[Math.floor(rand() * MOMENTS.length)] as AbortMoment;
    moments[moment] += 1;
    const turn = new AbortController();
    const signal = moment === 'dispose' ? session.signal : turn.signal;
    const handle = prefetcher.start({ userMessage: 'fill the pdf form', signal, visible: new Set(), invoked: new Set() });
    switch (moment) {
      case 'sync':
        turn.abort();
        break;
      case 'soon':
        await Promise.resolve();
        turn.abort();
        break;
      case 'random':
        await sleep(Math.floor(rand() * maxLatencyMs));
        turn.abort();
        break;
      case 'late':
        await handle.settled;
        turn.abort();
        break;
      case 'dispose':
        await sleep(Math.floor(rand() * maxLatencyMs));
        handle.dispose();
        break;
    }
    const attachment = await handle.collect();
    if (attachment !== null) nonNullCollects += 1;
    await handle.settled;
    leakedListeners += getEventListeners(turn.signal, 'abort').length;
  };

  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < options.turns) {
      next += 1;
      if (next === warmUp && checkHeap) heapBeforeBytes = heapAfterGc(gc);
      await runTurn();
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  await prefetcher.idle();
  // Searchers that ignored their signal still hold a timer until their latency elapses.
  while (searcher.outstanding > 0) await sleep(maxLatencyMs);
  await sleep(0);
  leakedListeners += getEventListeners(session.signal, 'abort').length;
  const timersAfter = activeTimers();
  const heapAfterBytes = checkHeap ? heapAfterGc(gc) : undefined;
  const elapsedMs = performance.now() - started;
  process.off('unhandledRejection', onUnhandled);

  const failures: string[] = [];
  if (unhandledRejections > 0) failures.push(`${unhandledRejections} unhandled rejections`);
  if (nonNullCollects > 0) failures.push(`${nonNullCollects} aborted turns collected a discovery`);
  if (leakedListeners > 0) failures.push(`${leakedListeners} abort listeners left on turn/session signals`);
  if (timersAfter > timersBefore) failures.push(`${timersAfter - timersBefore} timers left behind`);
  if (prefetcher.pendingCount > 0) failures.push(`${prefetcher.pendingCount} searches still pending`);
  if (heapBeforeBytes !== undefined && heapAfterBytes !== undefined && heapAfterBytes - heapBeforeBytes > maxHeapGrowthBytes) {
    failures.push(`heap grew ${formatMb(heapAfterBytes - heapBeforeBytes)} (limit ${formatMb(maxHeapGrowthBytes)})`);
  }

  return {
    turns: options.turns,
    seed,
    abortMoments: moments,
    searchesStarted: searcher.started,
    searchesCancelled: searcher.cancelled,
    lateResults: searcher.late,
    nonNullCollects,
    unhandledRejections,
    leakedListeners,
    timersBefore,
    timersAfter,
    heapBeforeBytes,
    heapAfterBytes,
    gc: gc !== undefined,
    elapsedMs,
    failures,
    pass: failures.length === 0,
  };
}

function formatMb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(2)} MB`;
}

function flag(args: readonly string[], name: string, fallback: number): number {
  const index = args.indexOf(name);
  if (index === -1) return fallback;
  const value = Number(args[index + 1]);
  if (!Number.isSafeInteger(value) || value < 0) {
    console.error(`soak-prefetch: Expected \`${name}\` to be a non-negative integer, got \`${args[index + 1]}\``);
    process.exit(1);
  }
  return value;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const report = await runPrefetchSoak({
    turns: flag(args, '--turns', 10_000),
    seed: flag(args, '--seed', 1),
    maxLatencyMs: flag(args, '--max-latency', 8),
    inFlight: flag(args, '--in-flight', 8),
  });
  const heap =
    report.heapBeforeBytes === undefined || report.heapAfterBytes === undefined
      ? 'heap n/a'
      : `heap ${formatMb(report.heapBeforeBytes)} → ${formatMb(report.heapAfterBytes)} (gc ${report.gc ? 'forced' : 'unavailable'})`;
  console.log(
    `turns ${report.turns} (seed ${report.seed}) · abort moments ${JSON.stringify(report.abortMoments)} · ` +
      `searches ${report.searchesStarted} (cancelled mid-search ${report.searchesCancelled}, late results dropped ${report.lateResults}) · ` +
      `unhandled rejections ${report.unhandledRejections} · leaked listeners ${report.leakedListeners} · ` +
      `timers ${report.timersBefore} → ${report.timersAfter} · ${heap} · ${(report.elapsedMs / 1000).toFixed(1)} s`,
  );
  console.log(report.pass ? 'PASS prefetch soak' : `FAIL prefetch soak: ${report.failures.join('; ')}`);
  process.exitCode = report.pass ? 0 : 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 2;
  });
}
