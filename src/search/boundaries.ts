import { tokenize } from '../lexical/tokenize.js';
import type { Skill } from '../types.js';
import { getOrAdd } from '../util/get-or-add.js';
import { normalizeName } from './exact-name.js';

/**
 * Negative boundaries: what a skill says it is *not* for ("Not for affinity prediction", a "When
 * NOT to Use" section, "For flowcharts, use the scientific-schematics skill instead"), read from
 * its description, `whenToUse` and body: the words that occur only in such clauses, plus the
 * skills it sends the user to instead. Ranking scores a skill down when the request uses its
 * boundary words, and its named alternatives up (`fusion.ts`). Computed at ranking time and
 * cached per skill object (docs/retrieval.md, "Negative boundaries").
 */
export interface Boundary {
  /** Stemmed tokens that occur only in the skill's negative clauses. */
  readonly terms: ReadonlySet<string>;
  /** Normalised names ({@link normalizeName}) of the skills it says to use instead. */
  readonly instead: readonly string[];
}

/** How many of a query's best candidates ranking reads boundaries for: a boundary only matters near the top, and reading one scans the skill's text. */
export const BOUNDARY_DEPTH = 20;

const EMPTY: Boundary = { terms: new Set(), instead: [] };

/** A clause that says when not to use the skill, up to the end of its sentence. */
const NEGATIVE_CLAUSE =
  /\b(?:not\s+(?:for|intended\s+for|meant\s+for|suitable\s+for|designed\s+for)|(?:do\s+not|don['’]t|never)\s+use(?:\s+(?:this|it|the\s+skill|this\s+skill))?(?:\s+(?:for|when|to|on|with|if|as))?|skip\s+(?:this\s+skill\s+)?(?:when|if|for)|avoid\s+(?:this\s+skill\s+)?(?:for|when))\b([^.!?;\n]*)/giu;
/** "For X, use Y instead" / "For X use Y": X is a boundary, Y an alternative. */
const FOR_USE_INSTEAD = /\bfor\s+([^.!?;\n]{3,160}?),?\s+use\s+(?:the\s+)?([^.!?;\n]{1,120}?)(?:\s+instead\b|[.!?;\n]|$)/giu;
/** "use Y instead" / "instead, use Y" / "—use Y for …" after a negative clause. */
const USE_INSTEAD =
  /\b(?:use\s+(?:the\s+)?([\w./:-]+(?:\s*(?:,|or)\s*[\w./:-]+)*)\s+(?:skill\s+)?instead|instead,?\s+use\s+(?:the\s+)?([\w./:-]+(?:\s*(?:,|or)\s*[\w./:-]+)*))/giu;
/** A body section about when not to use the skill. */
const NEGATIVE_HEADING = /^(#{1,6})\s+.*\b(?:when\s+not\s+to\s+use|not\s+for|do\s+not\s+use|don['’]t\s+use|when\s+to\s+avoid)\b/iu;
const HEADING = /^(#{1,6})\s/u;
const FENCE = /^\s*(?:```|~~~)/u;

/** Candidate skill names in an "use X instead" phrase: `qiskit, cirq, or pennylane` → three names. */
function namesIn(phrase: string): string[] {
  return phrase
    .replace(/[`*_]/g, '')
    .split(/\s*(?:,|\bor\b|\band\b)\s*/u)
    .map((part) =>
      part
        .trim()
        .replace(/^\/+/, '')
        .replace(/\s+skill$/iu, ''),
    )
    .filter((part) => part !== '' && part.split(/\s+/u).length <= 3)
    .map(normalizeName);
}

/** Splits `text` into its negative clauses and the rest; collects "instead" names. */
function scanProse(text: string, negative: string[], positive: string[], instead: string[]): void {
  let rest = text;
  for (const match of text.matchAll(FOR_USE_INSTEAD)) {
    const [whole, topic, target] = match;
    // Only when the sentence says "instead" or the target looks like a skill name (one to three words).
    if (!/\binstead\b/iu.test(whole) && (target ?? '').trim().split(/\s+/u).length > 3) continue;
    negative.push(topic!);
    instead.push(...namesIn(target!));
    rest = rest.replace(whole, ' ');
  }
  for (const match of rest.matchAll(NEGATIVE_CLAUSE)) {
    negative.push(match[1]!);
    for (const use of match[1]!.matchAll(USE_INSTEAD)) instead.push(...namesIn(use[1] ?? use[2] ?? ''));
    const dash = /[—–]\s*use\s+(.+)$/iu.exec(match[1]!);
    if (dash) instead.push(...namesIn(dash[1]!.replace(/\s+for\s+.*$/iu, '')));
    rest = rest.replace(match[0], ' ');
  }
  for (const use of rest.matchAll(USE_INSTEAD)) instead.push(...namesIn(use[1] ?? use[2] ?? ''));
  positive.push(rest);
}

/** A line worth reading for negative clauses: most of a body has none of these words. */
const CUE = /\b(?:not|never|don['’]t|instead|skip|avoid)\b/iu;

/** The body's "When NOT to Use"-style sections (outside code fences) and its other lines' negative clauses as negative text; the rest as positive. */
function scanBody(body: string, negative: string[], positive: string[], instead: string[]): void {
  let inFence = false;
  let negativeLevel = 0;
  const prose: string[] = [];
  for (const line of body.split(/\r?\n/u)) {
    if (FENCE.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    const heading = HEADING.exec(line);
    if (heading) {
      const level = heading[1]!.length;
      if (NEGATIVE_HEADING.test(line)) {
        negativeLevel = level;
        continue;
      }
      if (negativeLevel > 0 && level <= negativeLevel) negativeLevel = 0;
      if (negativeLevel > 0) continue;
    }
    if (negativeLevel > 0) {
      negative.push(line);
      for (const use of line.matchAll(USE_INSTEAD)) instead.push(...namesIn(use[1] ?? use[2] ?? ''));
    } else if (CUE.test(line)) {
      const rest: string[] = [];
      scanProse(line, negative, rest, instead);
      prose.push(rest.join(' '));
    } else prose.push(line);
  }
  positive.push(prose.join('\n'));
}

/** The boundary of one skill's text (uncached; see {@link boundaryOf}). */
export function parseBoundary(skill: Pick<Skill, 'name' | 'description' | 'whenToUse' | 'body'>): Boundary {
  const negative: string[] = [];
  const positive: string[] = [skill.name];
  const instead: string[] = [];
  scanProse(skill.description, negative, positive, instead);
  if (skill.whenToUse !== undefined) scanProse(skill.whenToUse, negative, positive, instead);
  if (skill.body !== '') scanBody(skill.body, negative, positive, instead);
  if (negative.length === 0) return instead.length === 0 ? EMPTY : { terms: new Set(), instead: [...new Set(instead)] };
  // A term (a stem, or a CJK bigram) found anywhere in the positive text counts as positive: a
  // substring test errs towards positive and costs far less than tokenising a whole body.
  const kept = positive.join('\n').toLowerCase();
  const own = normalizeName(skill.name);
  const terms = new Set(tokenize(negative.join('\n')).filter((term) => !kept.includes(term)));
  return { terms, instead: [...new Set(instead)].filter((name) => name !== own) };
}

const cache = new WeakMap<object, Boundary>();

/** {@link parseBoundary}, remembered per skill object (skills are immutable). */
export function boundaryOf(skill: Skill): Boundary {
  return getOrAdd(cache, skill, () => parseBoundary(skill));
}

/** Share of the query's terms that fall in the skill's boundary (0 when none do). */
export function boundaryHits(boundary: Boundary, terms: ReadonlySet<string>): number {
  if (boundary.terms.size === 0 || terms.size === 0) return 0;
  let hits = 0;
  for (const term of terms) if (boundary.terms.has(term)) hits += 1;
  return hits;
}
