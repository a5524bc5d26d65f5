import { tokenize } from '../lexical/tokenize.js';
import type { Skill } from '../types.js';
import { getOrAdd } from '../util/get-or-add.js';
import { humanizeName } from './skill-text.js';

/**
 * Phrase evidence: which of a request's adjacent word pairs a skill's own routing text (its name's
 * words, `whenToUse`, description; not the body) also has side by side. The lexical side reads
 * words alone; two words together ("phase checkpoint", "scaffold split") can tell apart skills of
 * one family that share them singly. The skills re-ranker reads it as `phrase` (`rerank.ts`);
 * why, and what it was worth: docs/retrieval.md, "eighteenth round".
 */

/** The distinct pairs of adjacent terms of `text`, as the lexical side tokenises it (a term beside itself skipped). */
export function termPairs(text: string): Set<string> {
  const terms = tokenize(text);
  const pairs = new Set<string>();
  for (let i = 1; i < terms.length; i += 1) if (terms[i - 1] !== terms[i]) pairs.add(`${terms[i - 1]} ${terms[i]}`);
  return pairs;
}

const cache = new WeakMap<object, ReadonlySet<string>>();

/** A skill's pairs, each text read apart (no pair spans two of them); remembered per skill object (skills are immutable). */
function skillPairs(skill: Pick<Skill, 'name' | 'description' | 'whenToUse'>): ReadonlySet<string> {
  return getOrAdd(cache, skill, () => new Set([humanizeName(skill.name), skill.whenToUse ?? '', skill.description].flatMap((text) => [...termPairs(text)])));
}

/** Share of the request's pairs the skill has (0 when the request has none). */
export function phraseShare(requestPairs: ReadonlySet<string>, skill: Pick<Skill, 'name' | 'description' | 'whenToUse'>): number {
  if (requestPairs.size === 0) return 0;
  const own = skillPairs(skill);
  let found = 0;
  for (const pair of requestPairs) if (own.has(pair)) found += 1;
  return found / requestPairs.size;
}
