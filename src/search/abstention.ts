import { badOption } from '../errors.js';
import { ABSTAIN_LEVELS, type AbstainLevel, type AbstainSetting, type SearchMode } from '../types.js';
import bundled from './relevance-model.json' with { type: 'json' };
import type { RelevanceModel } from './relevance.js';
import type { CatalogKind } from './rerank.js';

/**
 * Abstention: the first hit is shown only when its relevance (`relevance.ts`) reaches the
 * threshold, later ones when they reach it or stay close to the first ({@link ShownCut}); no hit
 * left means "nothing fits". `strict` and `balanced` are operating points chosen by
 * `scripts/fit-abstention.ts` (docs/retrieval.md); a number is a threshold of the caller's own.
 */

/** The fitted relevance models and operating points, as `relevance-model.json` holds them. */
export interface RelevanceModels {
  readonly version: number;
  readonly provenance: Readonly<Record<string, unknown>>;
  readonly models: Readonly<Record<SearchMode, RelevanceModel>>;
  readonly thresholds: Readonly<Record<SearchMode, Readonly<Record<Exclude<AbstainLevel, 'off'>, number>>>>;
  /**
   * Message entries by length (chosen by `scripts/choose-everyday-loso.ts`): a hybrid message reads the entry whose
   * reach holds it (the reaches are disjoint). One entry object is read as a list of one.
   */
  readonly long?: LongMessages | readonly LongMessages[];
}

/**
 * A skill library's operating point for messages past a few words: every evidence grows with a message's
 * length, so everyday chat passes the threshold fitted mostly on short requests (docs/retrieval.md,
 * "Everyday messages", rounds 9, 10, 13 and 14). Applies to hybrid messages of more than `words` and at most
 * `maxWords` white-space words (the lengths it was fitted on: longer ones keep the common entry) over
 * catalogues of more than `minSkills` skills (a user's first skills keep the common threshold).
 */
export interface LongMessages {
  readonly words: number;
  readonly maxWords: number;
  readonly minSkills: number;
  /** The hybrid model for them; the common one when absent. */
  readonly model?: RelevanceModel;
  readonly thresholds: Readonly<Record<Exclude<AbstainLevel, 'off'>, number>>;
  readonly provenance: Readonly<Record<string, unknown>>;
}

/** The message entries of `models`, as a list. */
export function messageEntries(models: RelevanceModels): readonly LongMessages[] {
  const long = models.long;
  if (long === undefined) return [];
  return 'words' in long ? [long] : long;
}

/** The message entry that applies to `message` searched in `mode` over `skills` skills, if any. */
export function longEntry(models: RelevanceModels, mode: SearchMode, message: string, skills: number): LongMessages | undefined {
  if (mode !== 'hybrid') return undefined;
  const words = message.split(/\s+/u).filter((word) => word !== '').length;
  return messageEntries(models).find((entry) => skills > entry.minSkills && words > entry.words && words <= entry.maxWords);
}

/** Checks a setting given by a user or a caller; the error names `name` and the value. */
export function assertAbstainSetting(name: string, value: unknown): AbstainSetting {
  if (ABSTAIN_LEVELS.includes(value as AbstainLevel)) return value as AbstainLevel;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1) return value;
  throw badOption(name, `be one of ${ABSTAIN_LEVELS.join(', ')} or a number from 0 to 1`, JSON.stringify(value) ?? String(value));
}

/**
 * How many ranked hits the relevance model reads: its list features were fitted on lists this
 * deep (10 when the model file does not say), so the same hit gets the same score for any `k`.
 */
export function scoringDepth(models: RelevanceModels): number {
  const depth = models.provenance['depth'];
  return typeof depth === 'number' && Number.isInteger(depth) && depth > 0 ? depth : 10;
}

/** The relevance a hit needs in `mode` under `setting` (0 for `off`: everything passes), `long` the message's long entry. */
export function thresholdFor(models: RelevanceModels, mode: SearchMode, setting: AbstainSetting, long?: LongMessages): number {
  if (typeof setting === 'number') return setting;
  if (setting === 'off') return 0;
  return (long?.thresholds ?? models.thresholds[mode])[setting];
}

/**
 * Relevance models per catalogue kind, picked by the rule that picks the re-ranker (`catalogKind`):
 * tool lists and skill libraries answer everyday messages differently (docs/retrieval.md,
 * "Everyday messages, round 4").
 */
export type RelevanceByKind = Readonly<Record<CatalogKind, RelevanceModels>>;

/** The models for a catalogue of `kind`: the kind's entry, or the caller's one set for every kind. */
export function relevanceFor(setting: RelevanceModels | RelevanceByKind, kind: CatalogKind): RelevanceModels {
  return 'models' in setting ? setting : setting[kind];
}

/** The models shipped with the package: `tools` fitted by `scripts/fit-abstention.ts`, `skills` by `scripts/fit-relevance-kind.ts`. */
export const BUNDLED_RELEVANCE: RelevanceByKind = (bundled as unknown as { kinds: RelevanceByKind }).kinds;

/** How far the shown list reaches past its first hit (`EngineOptions.shownCut`). */
export interface ShownCut {
  readonly relative: number;
  readonly floor: number;
}

/** How many of `scores` (best first, non-increasing) to show, at most `k`. */
export function shownCount(scores: readonly number[], threshold: number, cut: ShownCut, k: number): number {
  const first = scores[0];
  if (first === undefined || first < threshold || k < 1) return 0;
  let count = 1;
  while (count < Math.min(k, scores.length)) {
    const score = scores[count]!;
    if (score < threshold && (score < cut.relative * first || score < cut.floor * threshold)) break;
    count += 1;
  }
  return count;
}
