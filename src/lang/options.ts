import { definedOnly } from '../util/defined.js';
import { assertKnownKeys, badKnob } from '../util/option-checks.js';

/** How queries and skills in other languages are translated (`src/lang/`). */
export interface CrossLingualKnobs {
  /** Translate CJK queries and skills with the bundled dictionary. @default true */
  readonly enabled?: boolean;
  /** Where the reduced dictionary is cached. @default `dictionaries/` under the cache root */
  readonly dictionaryDir?: string;
  /** BM25 weights of a translated word's glosses in chosen order, sharing one unit (docs/languages.md). @default [1, 1, 1] */
  readonly glossWeights?: readonly number[];
}

export type ResolvedCrossLingualKnobs = CrossLingualKnobs & { readonly enabled: boolean; readonly glossWeights: readonly number[] };

/** The values of {@link CrossLingualKnobs}; `dictionaryDir` has none (the cache root's is found at load). */
export const CROSS_LINGUAL_DEFAULTS: ResolvedCrossLingualKnobs = Object.freeze({ enabled: true, glossWeights: Object.freeze([1, 1, 1]) });

/** Dictionary translation settings over {@link CROSS_LINGUAL_DEFAULTS}, validated and frozen; `dictionaryDir` stays optional. */
export function resolveCrossLingualKnobs(value: unknown): ResolvedCrossLingualKnobs {
  if (value === CROSS_LINGUAL_DEFAULTS) return CROSS_LINGUAL_DEFAULTS;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badKnob('crossLingual', 'an object', value);
  assertKnownKeys('SkillSearchEngine', value, ['enabled', 'dictionaryDir', 'glossWeights'] satisfies (keyof CrossLingualKnobs)[], 'crossLingual');
  const given = value as CrossLingualKnobs;
  const { enabled, glossWeights } = { ...CROSS_LINGUAL_DEFAULTS, ...definedOnly(given) };
  if (typeof enabled !== 'boolean') throw badKnob('crossLingual.enabled', 'a boolean', enabled);
  if (
    !Array.isArray(glossWeights) ||
    glossWeights.length === 0 ||
    !glossWeights.every((w) => typeof w === 'number' && Number.isFinite(w) && w >= 0) ||
    !glossWeights.some((w) => w > 0)
  ) {
    throw badKnob('crossLingual.glossWeights', 'a list of non-negative numbers, one above 0', glossWeights);
  }
  return Object.freeze({ ...given, enabled, glossWeights: Object.freeze([...glossWeights]) });
}
