/**
 * Follow-up prompts ("now do the same for the staging cluster") carry few skill words of their
 * own; the turns before them do. Such a prompt is searched alone and with the recent user turns,
 * the two rankings merged with the conversation weighted below the prompt.
 */
import type { SearchHit, SearchRequest, SkillSearcher } from '../types.js';

/** How much the conversation's ranking counts against the prompt's (1); chosen on dev (docs/retrieval.md, "Follow-up prompts"). */
export const CONVERSATION_WEIGHT = 0.7;

/** A word or phrase that refers back, as a whole word. */
const REFERRING = /\b(?:same|again|also|too|instead|likewise|similarly|that|those|it|them|there|previous|above|as\s+before|one\s+more|another|the\s+rest)\b/i;
/** A start that continues the conversation. */
const CONTINUING = /^(?:and|now|then|so|what\s+about|how\s+about)\b/i;

/** Thanks or an acknowledgement and nothing else: it asks for no task, so it is no follow-up. */
const ACKNOWLEDGEMENT =
  /^(?:(?:thanks?|thank\s+you|thx|ty|ok(?:ay)?|great|cool|nice|perfect|awesome|got\s+it|sounds\s+good|lgtm|much\s+appreciated)[\s\p{P}\p{S}]*)+$/iu;

/** A prompt of at most 3 words, or of at most 12 (and 160 characters) that refers back or starts by continuing. */
export function isFollowUp(prompt: string): boolean {
  const text = prompt.trim();
  if (text === '' || text.length > 160 || ACKNOWLEDGEMENT.test(text)) return false;
  const words = text.split(/\s+/).length;
  return words <= 3 || (words <= 12 && (REFERRING.test(text) || CONTINUING.test(text)));
}

/** The query searched for the conversation: the recent turns, then the prompt. */
export function conversationQuery(turns: readonly string[], prompt: string): string {
  return [...turns, prompt].join('\n');
}

/**
 * `inner`, where a search for `prompt` also searches it with `turns`: each skill scores its prompt
 * score plus `weight` times its conversation score. Other queries pass through unchanged.
 */
export function withConversation<T extends SkillSearcher>(
  inner: T,
  prompt: string,
  turns: readonly string[],
  { weight = CONVERSATION_WEIGHT }: { readonly weight?: number } = {},
): SkillSearcher {
  if (turns.length === 0) return inner;
  const asked = prompt.trim();
  return {
    async search(query: string, request?: SearchRequest): Promise<readonly SearchHit[]> {
      // The prefetcher searches the trimmed message.
      if (query.trim() !== asked) return inner.search(query, request);
      const [own, context] = await Promise.all([inner.search(query, request), inner.search(conversationQuery(turns, query), request)]);
      // A prompt that names skills gets them (src/search/ranker.ts): the conversation adds none.
      if (own.some((hit) => hit.via.includes('exact'))) return own;
      return mergeRankings(own, context, weight, request?.k);
    },
  };
}

/** Hits of both rankings by `score(own) + weight × score(context)`, best first, at most `k`. */
export function mergeRankings(own: readonly SearchHit[], context: readonly SearchHit[], weight: number, k?: number): SearchHit[] {
  const merged = new Map<string, SearchHit>();
  for (const hit of own) if (!merged.has(hit.skill.name)) merged.set(hit.skill.name, hit);
  const counted = new Set<string>();
  for (const hit of context) {
    const name = hit.skill.name;
    if (counted.has(name)) continue;
    counted.add(name);
    const mine = merged.get(name);
    merged.set(name, mine === undefined ? { ...hit, score: weight * hit.score } : { ...mine, score: mine.score + weight * hit.score });
  }
  const ranked = [...merged.values()].sort((a, b) => b.score - a.score);
  return k === undefined ? ranked : ranked.slice(0, k);
}
