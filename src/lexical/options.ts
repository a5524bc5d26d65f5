import { definedOnly } from '../util/defined.js';
import { assertFinite, assertPositiveInteger, nestedKnobs } from '../util/option-checks.js';

/** BM25 weight per indexed field of a skill (see {@link LexicalKnobs.fieldBoosts}). */
export interface FieldBoosts {
  readonly name: number;
  readonly whenToUse: number;
  readonly keywords: number;
  readonly description: number;
  readonly body: number;
  /** English glosses of a skill written in Chinese or Japanese (`src/lang/`). */
  readonly glosses: number;
}

/** Typo tolerance of the lexical ranker (see {@link LexicalKnobs.fuzzy}). */
export interface FuzzyOptions {
  /** Shortest query word that may match with edits. */
  readonly minLength: number;
  /** Edits allowed, as a share of the word's length. */
  readonly ratio: number;
}

/** The lexical ranker's knobs, part of `EngineOptions`; measurements behind them are in docs/retrieval.md. */
export interface LexicalKnobs {
  /**
   * BM25 weight of each skill field (0 leaves it out; fields left out of an override keep their
   * default). `body` holds SKILL.md headings, list items and first paragraphs; `glosses`, the
   * English of a skill written in Chinese or Japanese. How they were chosen: docs/retrieval.md.
   * @default {name: 2, whenToUse: 1.5, keywords: 1.5, description: 1, body: 0.3, glosses: 1}
   */
  readonly fieldBoosts?: Partial<FieldBoosts>;
  /**
   * Typo tolerance for query words the catalog does not have (a known word is matched exactly
   * and by prefix): words of at least `minLength` characters match with up to `ratio` × length
   * edits (docs/retrieval.md). @default {minLength: 5, ratio: 0.2}
   */
  readonly fuzzy?: Partial<FuzzyOptions>;
  /**
   * Query words of at least this many characters also match longer indexed words they start;
   * shorter prefixes (`m`, `de`) would match half the vocabulary. @default 4
   */
  readonly prefixMinLength?: number;
}

export interface ResolvedLexicalKnobs {
  readonly fieldBoosts: FieldBoosts;
  readonly fuzzy: FuzzyOptions;
  readonly prefixMinLength: number;
}

/** The values of {@link LexicalKnobs}; a lexical search given none uses these. */
export const LEXICAL_DEFAULTS: ResolvedLexicalKnobs = Object.freeze({
  fieldBoosts: Object.freeze({ name: 2, whenToUse: 1.5, keywords: 1.5, description: 1, body: 0.3, glosses: 1 }),
  fuzzy: Object.freeze({ minLength: 5, ratio: 0.2 }),
  prefixMinLength: 4,
});

/** Merges each group over {@link LEXICAL_DEFAULTS} field by field, validates, freezes. */
export function resolveLexicalKnobs(given: { readonly [knob in keyof LexicalKnobs]?: unknown }): ResolvedLexicalKnobs {
  const merged = { ...LEXICAL_DEFAULTS, ...definedOnly(given) };
  const fieldBoosts = nestedKnobs('fieldBoosts', LEXICAL_DEFAULTS.fieldBoosts, merged.fieldBoosts);
  const fuzzy = nestedKnobs('fuzzy', LEXICAL_DEFAULTS.fuzzy, merged.fuzzy);
  return Object.freeze({
    fieldBoosts: Object.freeze(
      Object.fromEntries(
        Object.keys(LEXICAL_DEFAULTS.fieldBoosts).map((field) => [
          field,
          assertFinite(`fieldBoosts.${field}`, fieldBoosts[field as keyof FieldBoosts], 0, 100),
        ]),
      ) as unknown as FieldBoosts,
    ),
    fuzzy: Object.freeze({
      minLength: assertPositiveInteger('fuzzy.minLength', fuzzy.minLength),
      ratio: assertFinite('fuzzy.ratio', fuzzy.ratio, 0, 1),
    }),
    prefixMinLength: assertPositiveInteger('prefixMinLength', merged.prefixMinLength),
  });
}
