/**
 * Name patterns for choosing skills: `*` any run of characters, `?` one; with a `/`, on the file path (`*` and `?` within one folder
 * name, a `**` segment any number of folders). A two-pointer matcher, O(text × pattern), not a backtracking regular expression.
 */
import { SkillSearchError } from '../errors.js';
import type { Skill } from '../types.js';

/** Longest pattern accepted, in characters (a path pattern names a few folders). */
export const MAX_GLOB_LENGTH = 1024;

const GLOBSTAR = Symbol('**');
type Segment = string | typeof GLOBSTAR;

/** Whether `text` matches `pattern`, a star any run of elements, any other element one (`same`): on a mismatch the last star takes one more. */
function matchSequence<P, T>(pattern: readonly P[], text: readonly T[], isStar: (p: P) => boolean, same: (p: P, t: T) => boolean): boolean {
  let p = 0;
  let t = 0;
  let starAt = -1;
  let starText = 0;
  while (t < text.length) {
    if (p < pattern.length && isStar(pattern[p]!)) {
      starAt = p++;
      starText = t;
    } else if (p < pattern.length && same(pattern[p]!, text[t]!)) {
      p += 1;
      t += 1;
    } else if (starAt >= 0) {
      p = starAt + 1;
      starText += 1;
      t = starText;
    } else return false;
  }
  while (p < pattern.length && isStar(pattern[p]!)) p += 1;
  return p === pattern.length;
}

const isStarChar = (char: string): boolean => char === '*';
const charMatches = (char: string, got: string): boolean => char === '?' || char === got;

/** `*` and `?` within one string (a name, or one folder name of a path). */
function matchWildcard(pattern: string, text: string): boolean {
  return matchSequence([...pattern], [...text], isStarChar, charMatches);
}

const isGlobstar = (segment: Segment): boolean => segment === GLOBSTAR;
const segmentMatches = (segment: Segment, got: string): boolean => typeof segment === 'string' && matchWildcard(segment, got);

export class SkillMatcher {
  /** Lower-cased: names match regardless of case. */
  readonly #names: string[] = [];
  readonly #paths: Segment[][] = [];

  /** @throws SkillSearchError (`BAD_OPTION`) for a pattern longer than {@link MAX_GLOB_LENGTH}. */
  constructor(patterns: readonly string[]) {
    for (const pattern of patterns) {
      if (pattern.length > MAX_GLOB_LENGTH) {
        const shown = JSON.stringify(pattern.slice(0, 40));
        throw new SkillSearchError('BAD_OPTION', `skill pattern of ${pattern.length} characters is longer than ${MAX_GLOB_LENGTH}: ${shown}…`);
      }
      if (pattern.includes('/')) this.#paths.push(pattern.split('/').map((segment) => (segment === '**' ? GLOBSTAR : segment)));
      else this.#names.push(pattern.toLowerCase());
    }
  }

  get empty(): boolean {
    return this.#names.length + this.#paths.length === 0;
  }

  matches(skill: Pick<Skill, 'name' | 'path'>): boolean {
    const name = skill.name.toLowerCase();
    if (this.#names.some((pattern) => matchWildcard(pattern, name))) return true;
    if (this.#paths.length === 0) return false;
    const segments = skill.path.replaceAll('\\', '/').split('/');
    return this.#paths.some((pattern) => matchSequence(pattern, segments, isGlobstar, segmentMatches));
  }
}

/** The include/exclude rule: a skill is used when `include` is empty or matches it, and `exclude` does not. */
export function skillSelector(include: readonly string[], exclude: readonly string[]): (skill: Pick<Skill, 'name' | 'path'>) => boolean {
  const included = new SkillMatcher(include);
  const excluded = new SkillMatcher(exclude);
  return (skill) => (included.empty || included.matches(skill)) && !excluded.matches(skill);
}
