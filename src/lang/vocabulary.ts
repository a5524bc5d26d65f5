import { tokenize } from '../lexical/tokenize.js';
import { MAX_GLOSSES } from './glosses.js';
import { getOrAdd } from '../util/get-or-add.js';

/** Shortest part, in letters, {@link CatalogueVocabulary.compound} joins. */
const MIN_COMPOUND_PART = 3;
const PART = new RegExp(`^[a-z]{${MIN_COMPOUND_PART},}$`);

/**
 * A catalogue's English search terms (stemmed) and the skills using each, to choose a Chinese
 * word's gloss whose skills also use the request's other words (服务 "service", not "serve", beside 线上 "online").
 */
export class CatalogueVocabulary {
  /** term → indices of the skills that use it, ascending. */
  readonly #postings = new Map<string, number[]>();

  /** `texts`: one text per skill (name, description, when to use). */
  constructor(texts: Iterable<string>) {
    let index = 0;
    for (const text of texts) {
      for (const term of new Set(tokenize(text))) getOrAdd(this.#postings, term, () => []).push(index);
      index += 1;
    }
  }

  /** The skills that use every search term of `text` (empty for stop words only, or a term no skill uses). */
  skillsOf(text: string): readonly number[] {
    const terms = [...new Set(tokenize(text))];
    if (terms.length === 0) return [];
    let out: readonly number[] | undefined;
    for (const term of terms) {
      const list = this.#postings.get(term);
      if (list === undefined) return [];
      out = out === undefined ? list : intersect(out, list);
      if (out.length === 0) return [];
    }
    return out ?? [];
  }

  /**
   * The catalogue term two adjacent words' glosses spell as one word ("heat" + "map" → "heatmap"),
   * or one word's two-word gloss does ("flow chart"); of several, the one fewest skills use. Parts
   * under {@link MIN_COMPOUND_PART} letters are not joined.
   */
  compound(first: readonly string[], second: readonly string[] = []): string | undefined {
    const parts = (glosses: readonly string[]): string[] => glosses.filter((gloss) => PART.test(gloss));
    const candidates: string[] = [];
    if (second.length === 0) {
      for (const gloss of first) {
        const pair = gloss.split(' ');
        if (pair.length === 2 && pair.every((part) => PART.test(part))) candidates.push(pair.join(''));
      }
    } else for (const a of parts(first)) for (const b of parts(second)) candidates.push(a + b);
    let best: string | undefined;
    let bestCount = Number.POSITIVE_INFINITY;
    for (const candidate of candidates) {
      const terms = tokenize(candidate);
      if (terms.length !== 1) continue;
      const count = this.#postings.get(terms[0]!)?.length ?? 0;
      if (count > 0 && count < bestCount) {
        best = candidate;
        bestCount = count;
      }
    }
    return best;
  }

  /**
   * Each request word's glosses to search with (`fixed`: Latin runs and loanwords, kept): those the
   * catalogue uses, ranked by their skills' overlap with the other words' (Ochiai, summed, each at
   * its best gloss), ties in dictionary order; the first {@link MAX_GLOSSES} without any overlap.
   */
  choose(words: readonly { readonly glosses: readonly string[]; readonly fixed?: boolean }[]): (readonly string[])[] {
    const sets = words.map((word) => word.glosses.map((gloss) => this.skillsOf(gloss)));
    return words.map((word, i) => {
      if (word.fixed === true) return word.glosses;
      const scored = word.glosses
        .map((gloss, order) => ({ gloss, order, skills: sets[i]![order]! }))
        .filter(({ skills }) => skills.length > 0)
        .map(({ gloss, order, skills }) => {
          let score = 0;
          sets.forEach((other, j) => {
            if (j === i) return;
            let best = 0;
            for (const set of other) if (set.length > 0) best = Math.max(best, intersect(skills, set).length / Math.sqrt(skills.length * set.length));
            score += best;
          });
          return { gloss, order, score };
        })
        .sort((a, b) => b.score - a.score || a.order - b.order);
      // Without any overlap there is no evidence against the dictionary's order.
      if (scored.length === 0 || scored[0]!.score === 0) return word.glosses.slice(0, MAX_GLOSSES);
      return scored.slice(0, MAX_GLOSSES).map(({ gloss }) => gloss);
    });
  }
}

function intersect(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i]! < b[j]!) i += 1;
    else if (a[i]! > b[j]!) j += 1;
    else {
      out.push(a[i]!);
      i += 1;
      j += 1;
    }
  }
  return out;
}
