/**
 * Skill prefetch (SPEC §5): when a user message arrives the search starts at once in the
 * background; after tools finish the harness collects a skill_discovery attachment, or `null`.
 *
 * Invariants: `start()` never throws for a search failure and never awaits; `collect()` never
 * rejects; an aborted or disposed turn always collects `null`, even if its search resolves late;
 * the listener on the turn's signal is removed when the search settles.
 */
import { badOption, abortError, throwIfAborted } from '../errors.js';
import type { SearchHit, SkillSearcher } from '../types.js';
import { definedOnly } from '../util/defined.js';
import { assertKnownKeys, badKnob, positiveInteger } from '../util/option-checks.js';
import type { DiscoveredSkill, SkillDiscoveryAttachment } from '../attachments/messages.js';
import { capQuery } from '../integrations/query-cap.js';
import { offeredHits } from '../load/invocation.js';
import { withoutLoneCompanions } from '../search/companions.js';
import { linkAbortSignal } from '../util/link-signal.js';
import { TaskLimiter } from './task-limiter.js';

export interface SkillPrefetcherOptions {
  /** The search over the whole catalog. Must reject with an AbortError when its signal aborts. */
  readonly searcher: SkillSearcher;
  /** Searches running at once; further turns wait in a queue (and leave it when aborted). @default 2 */
  readonly concurrency?: number;
  /** Most skills in one discovery attachment. @default 3 */
  readonly maxSkills?: number;
  /** Hits requested from the searcher; more than `maxSkills` so that hits already visible or invoked can be skipped. @default 10 */
  readonly searchK?: number;
  /** Hits scoring below this are not relevant. The searcher's own abstention applies first. @default 0 */
  readonly minScore?: number;
  /** Clock for timings, in milliseconds. @default performance.now */
  readonly now?: () => number;
  /** Called with a search failure other than an abort; the turn goes on without discovery (else see `handle.error`). */
  readonly onError?: ((error: unknown) => void) | undefined;
}

type ResolvedOptions = Readonly<Required<Omit<SkillPrefetcherOptions, 'onError'>>> & Pick<SkillPrefetcherOptions, 'onError'>;

const defaults = { concurrency: 2, maxSkills: 3, searchK: 10, minScore: 0, now: () => performance.now() } as const;

function resolvePrefetcherOptions(options: SkillPrefetcherOptions): ResolvedOptions {
  const searcher: unknown = (options as { searcher?: unknown } | undefined)?.searcher;
  if (typeof searcher !== 'object' || searcher === null || typeof (searcher as SkillSearcher).search !== 'function') {
    throw badOption('searcher', `have a \`search(query, request)\` method`, searcher);
  }
  assertKnownKeys('SkillPrefetcher', options, ['searcher', ...Object.keys(defaults), 'onError']);
  const merged = { ...defaults, ...definedOnly(options) } as unknown as ResolvedOptions;
  positiveInteger('concurrency', merged.concurrency);
  positiveInteger('maxSkills', merged.maxSkills);
  positiveInteger('searchK', merged.searchK);
  if (typeof merged.minScore !== 'number' || !Number.isFinite(merged.minScore)) throw badOption('minScore', 'be a finite number', merged.minScore);
  if (typeof merged.now !== 'function') throw badOption('now', 'be a function', merged.now);
  return Object.freeze({ ...merged, searchK: Math.max(merged.searchK, merged.maxSkills) });
}

export interface PrefetchTurn {
  /** The user message that starts the turn; the search query. */
  readonly userMessage: string;
  /** Aborts when the turn ends or is cancelled; the search is cancelled with it. */
  readonly signal?: AbortSignal | undefined;
  /** Names already visible to the model (listed or discovered). Read when collecting. */
  readonly visible?: ReadonlySet<string> | undefined;
  /** Names already invoked in this conversation. Read when collecting. */
  readonly invoked?: ReadonlySet<string> | undefined;
}

/** `pending`: searching or queued. `done`: hits available. `aborted`: turn ended or disposed. `failed`: search error. */
export type PrefetchState = 'pending' | 'done' | 'aborted' | 'failed';

/** Milliseconds on the prefetcher's clock. */
export interface PrefetchTiming {
  readonly startedAt: number;
  readonly settledAt: number | undefined;
  readonly collectCalledAt: number | undefined;
  readonly collectedAt: number | undefined;
  /** settledAt − startedAt: how long the search took, queueing included. */
  readonly searchMs: number | undefined;
  /** collectedAt − collectCalledAt: how long the turn actually waited for the prefetch. */
  readonly addedMs: number | undefined;
}

type Outcome =
  | { readonly state: 'done'; readonly hits: readonly SearchHit[] }
  | { readonly state: 'aborted' }
  | { readonly state: 'failed'; readonly error: unknown };

const EMPTY: ReadonlySet<string> = new Set();

/** `visible` and `invoked` are read with `has` when collecting: anything else (an array) is refused when the turn starts. */
function isNameSet(names: unknown): boolean {
  return names === undefined || typeof (names as ReadonlySet<string> | null)?.has === 'function';
}

export class PrefetchHandle {
  readonly #controller = new AbortController();
  readonly #turn: PrefetchTurn;
  readonly #options: ResolvedOptions;
  readonly #settled: Promise<Outcome>;
  #resolveSettled!: (outcome: Outcome) => void;
  #outcome: Outcome | undefined;
  #collected: Promise<SkillDiscoveryAttachment | null> | undefined;
  #unlink: () => void = () => {};
  /** The timing's clock readings; its durations are told from them. */
  readonly #timing: { -readonly [K in 'startedAt' | 'settledAt' | 'collectCalledAt' | 'collectedAt']: PrefetchTiming[K] };

  /** @internal Use `SkillPrefetcher.start()`. */
  constructor(turn: PrefetchTurn, options: ResolvedOptions, schedule: (query: string, signal: AbortSignal) => Promise<readonly SearchHit[]>) {
    this.#turn = turn;
    this.#options = options;
    this.#timing = { startedAt: options.now(), settledAt: undefined, collectCalledAt: undefined, collectedAt: undefined };
    this.#settled = new Promise((resolve) => {
      this.#resolveSettled = resolve;
    });

    // A pasted log can be megabytes: searched as the hook searches a prompt, its start and its end.
    const query = capQuery(turn.userMessage.trim());
    this.#unlink = linkAbortSignal(turn.signal, this.#controller);
    const { signal } = this.#controller;
    if (signal.aborted) {
      this.#settle({ state: 'aborted' });
      return;
    }
    if (query === '') {
      this.#settle({ state: 'done', hits: [] });
      return;
    }
    signal.addEventListener('abort', () => this.#settle({ state: 'aborted' }), { once: true });
    let scheduled: Promise<readonly SearchHit[]>;
    try {
      scheduled = schedule(query, signal);
    } catch (error) {
      scheduled = Promise.reject(error);
    }
    scheduled.then(
      (hits) => this.#settle(signal.aborted ? { state: 'aborted' } : { state: 'done', hits }),
      (error: unknown) => this.#settle(signal.aborted ? { state: 'aborted' } : { state: 'failed', error }),
    );
  }

  get state(): PrefetchState {
    return this.#outcome?.state ?? 'pending';
  }

  /** The search failure when `state` is `failed`. */
  get error(): unknown {
    return this.#outcome?.state === 'failed' ? this.#outcome.error : undefined;
  }

  get timing(): PrefetchTiming {
    const { startedAt, settledAt, collectCalledAt, collectedAt } = this.#timing;
    return {
      ...this.#timing,
      searchMs: settledAt === undefined ? undefined : settledAt - startedAt,
      addedMs: collectedAt === undefined ? undefined : collectedAt - collectCalledAt!,
    };
  }

  /** Resolves once the search has settled (done, aborted or failed). Never rejects. */
  get settled(): Promise<PrefetchState> {
    return this.#settled.then((outcome) => outcome.state);
  }

  /**
   * Wait for the search (call after tools finish) and build the discovery: hits scoring at
   * least `minScore`, not visible and not invoked at this moment, best first, at most
   * `maxSkills`. `null` when nothing qualifies, or when the turn was aborted or disposed.
   * Never rejects; repeated calls return the same promise.
   */
  collect(): Promise<SkillDiscoveryAttachment | null> {
    if (this.#collected !== undefined) return this.#collected;
    const { now } = this.#options;
    this.#timing.collectCalledAt = now();
    this.#collected = this.#settled.then((outcome) => {
      this.#timing.collectedAt = now();
      // The turn's signal too: it is unlinked once the search settles.
      if (outcome.state !== 'done' || this.#controller.signal.aborted || this.#turn.signal?.aborted === true) return null;
      return this.#discovery(outcome.hits);
    });
    return this.#collected;
  }

  /** Cancel the search; a later result is dropped and `collect()` gives `null`. Idempotent. */
  dispose(): void {
    if (!this.#controller.signal.aborted) this.#controller.abort(abortError());
  }

  #discovery(hits: readonly SearchHit[]): SkillDiscoveryAttachment | null {
    const visible = this.#turn.visible ?? EMPTY;
    const invoked = this.#turn.invoked ?? EMPTY;
    const { maxSkills, minScore } = this.#options;
    const seen = new Set<string>();
    const kept = offeredHits(hits)
      .sort((a, b) => b.score - a.score)
      .filter(({ skill, score }) => score >= minScore && !visible.has(skill.name) && !invoked.has(skill.name));
    const skills: DiscoveredSkill[] = [];
    for (const { skill, score } of withoutLoneCompanions(kept)) {
      if (skills.length >= maxSkills) break;
      if (seen.has(skill.name)) continue;
      seen.add(skill.name);
      skills.push({
        name: skill.name,
        description: skill.description,
        ...(skill.whenToUse === undefined ? {} : { whenToUse: skill.whenToUse }),
        source: skill.source,
        score,
      });
    }
    return skills.length === 0 ? null : { type: 'skill_discovery', skills };
  }

  #settle(outcome: Outcome): void {
    if (this.#outcome !== undefined) return;
    this.#outcome = outcome;
    this.#timing.settledAt = this.#options.now();
    this.#unlink();
    this.#unlink = () => {};
    if (outcome.state === 'failed') this.#options.onError?.(outcome.error);
    this.#resolveSettled(outcome);
  }
}

export class SkillPrefetcher {
  readonly #options: ResolvedOptions;
  /** Bounds concurrent searches; an aborted turn leaves the line through its signal. */
  readonly #queue: TaskLimiter;
  /** Handles whose search has not settled; emptied as they settle, so it cannot grow without bound. */
  readonly #pending = new Set<PrefetchHandle>();

  constructor(options: SkillPrefetcherOptions) {
    this.#options = resolvePrefetcherOptions(options);
    this.#queue = new TaskLimiter(this.#options.concurrency);
  }

  /** Start the search for a turn in the background. Synchronous; never throws for a search failure. */
  start(turn: PrefetchTurn): PrefetchHandle {
    if (typeof turn?.userMessage !== 'string') throw badOption('userMessage', 'be a string', turn?.userMessage);
    if (!isNameSet(turn.visible)) throw badKnob('visible', 'a Set of skill names (skillNamesInHistory(history))', turn.visible);
    if (!isNameSet(turn.invoked)) throw badKnob('invoked', 'a Set of skill names', turn.invoked);
    const { searcher, searchK } = this.#options;
    const handle = new PrefetchHandle(turn, this.#options, (query, signal) =>
      this.#queue.run(async () => {
        // A free slot runs its task inside run(): yield once so the searcher's synchronous part is not start()'s.
        await undefined;
        throwIfAborted(signal);
        return searcher.search(query, { k: searchK, signal });
      }, signal),
    );
    if (handle.state === 'pending') {
      this.#pending.add(handle);
      void handle.settled.then(() => this.#pending.delete(handle));
    }
    return handle;
  }

  /** Searches started and not yet settled (running or queued). */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Searches running right now. */
  get runningCount(): number {
    return this.#queue.running;
  }

  /** Cancel every pending search. */
  disposeAll(): void {
    for (const handle of this.#pending) handle.dispose();
  }

  /** Resolves when no search is pending. */
  async idle(): Promise<void> {
    await Promise.all([...this.#pending].map((handle) => handle.settled));
  }
}
