import { stem } from './stem.js';
import { STOP_WORDS } from './stop-words.js';

/**
 * Tokeniser shared by indexing and querying, so both sides always agree.
 * - Latin text: split on anything not a letter or digit; identifiers kept whole *and* split into
 *   their parts (`getPostmodernTheory` → `getpostmoderntheory`, `get`, `postmodern`, `theory`).
 * - CJK runs: overlapping character bigrams plus the `Intl.Segmenter` words longer than two
 *   characters (the ICU dictionary misses many technical words; bigrams keep them findable).
 * - Everything lowercased; English stop words dropped; plain English words stemmed (`stem.ts`).
 */

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?(?:[-_.:/][\p{L}\p{N}]+)*/gu;
const PART_SEPARATOR = /[-_.:/]+/;
/** Boundaries inside camelCase / PascalCase / letter-digit runs. */
const CAMEL_BOUNDARY = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u;

let segmenter: Intl.Segmenter | undefined;
function cjkSegmenter(): Intl.Segmenter {
  segmenter ??= new Intl.Segmenter('zh', { granularity: 'word' });
  return segmenter;
}

/** A word with no separator, digit or inner capital: it has no parts (most words of prose). */
const PLAIN_WORD = /^\p{Lu}?\p{Ll}*$/u;

function pushLatin(word: string, out: string[]): void {
  const whole = word.toLowerCase();
  out.push(whole);
  if (PLAIN_WORD.test(word)) return;
  const pieces = word.split(PART_SEPARATOR).flatMap((piece) => piece.split(CAMEL_BOUNDARY));
  if (pieces.length > 1) for (const piece of pieces) if (piece !== '') out.push(piece.toLowerCase());
}

function pushCjk(run: string, out: string[]): void {
  const chars = Array.from(run);
  if (chars.length === 1) {
    out.push(run);
    return;
  }
  for (const { segment, isWordLike } of cjkSegmenter().segment(run)) {
    if (isWordLike && Array.from(segment).length > 2) out.push(segment);
  }
  for (let i = 0; i + 1 < chars.length; i += 1) out.push(chars[i]! + chars[i + 1]!);
}

/** Raw tokens, lowercased, stop words included (used where position matters, e.g. name matching). */
export function splitWords(text: string): string[] {
  const out: string[] = [];
  let last = 0;
  for (const match of text.matchAll(CJK_RUN)) {
    for (const latin of text.slice(last, match.index).matchAll(WORD)) pushLatin(latin[0], out);
    pushCjk(match[0], out);
    last = match.index + match[0].length;
  }
  for (const latin of text.slice(last).matchAll(WORD)) pushLatin(latin[0], out);
  return out;
}

/** Index/query terms: {@link splitWords} without stop words, stemmed. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const token of splitWords(text)) if (!STOP_WORDS.has(token)) out.push(stem(token));
  return out;
}
