/**
 * Follow-up prompts ("now do the same for the staging cluster") carry few skill words of their
 * own; the turns before them do. Such a prompt is searched twice, alone and together with the
 * recent user turns, and the two rankings are merged with the conversation weighted below the
 * prompt: a skill the prompt finds by itself keeps its lead.
 */
import type { SearchHit, SearchRequest, SkillSearcher } from '../types.js';

export const FOLLOW_UP_RULE = Object.freeze({
  /** A prompt of at most this many words is a follow-up whatever its words. */
  shortWords: 3,
  /** A prompt of more words than this (or more characters than `maxChars`) never is. */
  maxWords: 12,
  maxChars: 160,
  /**
   * Between the two: a follow-up when it refers back (a word or phrase of this list). The
   * phrases are matched as whole words, case-insensitively.
   */
  referring: [
    'same',
    'again',
    'also',
    'too',
    'instead',
    'likewise',
    'similarly',
    'that',
    'those',
    'it',
    'them',
    'there',
    'previous',
    'above',
    'as before',
    'one more',
    'another',
    'the rest',
  ],
  /** Between the two: a follow-up too when it starts by continuing the conversation. */
  continuing: ['and', 'now', 'then', 'so', 'what about', 'how about'],
});

/**
 * How much the conversation's ranking counts against the prompt's own (which counts 1): the
 * smallest weight reaching the best hit@1 on the dev half of eval/follow-up/requests.jsonl
 * (0.5 → 0.667, 0.7 → 0.750, 0.8 and 0.9 → 0.750; `scripts/eval-follow-up.ts --split dev --weight W`).
 */
export const CONVERSATION_WEIGHT = 0.7;

const phrases = (list: readonly string[]) => list.map((phrase) => phrase.replace(/ /g, '\\s+')).join('|');
const REFERRING = new RegExp(`\\b(?:${phrases(FOLLOW_UP_RULE.referring)})\\b`, 'i');
const CONTINUING = new RegExp(`^(?:${phrases(FOLLOW_UP_RULE.continuing)})\\b`, 'i');

/**
 * The rule: a prompt of at most `shortWords` words, or of at most `maxWords` words (and
 * `maxChars` characters) with a referring word (`same`, `again`, `that`, `it`, …) or starting
 * with a continuing one (`and`, `now`, `then`, …).
 */
export function isFollowUp(prompt: string): boolean {
  const text = prompt.trim();
  if (text === '' || text.length > FOLLOW_UP_RULE.maxChars) return false;
  const words = text.split(/\s+/).length;
  if (words <= FOLLOW_UP_RULE.shortWords) return true;
  return words <= FOLLOW_UP_RULE.maxWords && (REFERRING.test(text) || CONTINUING.test(text));
}

/** The query searched for the conversation: the recent turns, then the prompt. */
export function conversationQuery(turns: readonly string[], prompt: string): string {
  return [...turns, prompt].join('\n');
}

/**
 * `inner`, where a search for `prompt` also searches it with `turns` and merges the two:
 * each skill scores its prompt score plus `weight` (default `CONVERSATION_WEIGHT`) times its
 * conversation score.
 * Other queries (and a prompt with no turns) pass through unchanged.
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
