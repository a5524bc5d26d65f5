import type { GroupedTerms } from '../lexical/lexical-index.js';
import { CROSS_LINGUAL_DEFAULTS } from './options.js';
import { tokenize } from '../lexical/tokenize.js';
import type { Dictionary } from './dictionary.js';
import { MAX_GLOSSES } from './glosses.js';
import type { LoanwordMatcher } from './loanwords.js';
import type { CatalogueVocabulary } from './vocabulary.js';

/**
 * Dictionary translation of CJK text into English search text. Latin runs stay; Han runs are segmented with
 * `Intl.Segmenter` and looked up longest match first (joining segments, 调|试 → 调试, never starting inside one);
 * hiragana is dropped; katakana goes to `loanwords` when given.
 */

/** Function words whose glosses would only add noise to a search (particles, pronouns, filler verbs). */
const STOP = new Set(
  (
    '的 了 着 过 地 得 吗 呢 吧 啊 呀 和 与 及 并 或 而 就 都 也 还 又 再 很 太 更 最 在 是 有 要 想 能 会 可以 需要 应该 ' +
    '我 你 他 她 它 我们 你们 他们 咱们 自己 这 那 这个 那个 这些 那些 这里 那里 这样 那样 ' +
    '把 被 给 让 帮 帮我 帮忙 请 麻烦 一下 一个 一份 一张 一些 一种 怎么 怎样 如何 什么 为什么 哪 哪里 ' +
    '里 上 中 下 时 时候 之前 之后 以后 以前 然后 如果 因为 所以 但是 可是 不过 对 从 到 为 向 用 做 弄 搞 ' +
    '当 一次 一一 一起 一样 一定 一直 一 个 些 份 张 条 次 点 私 僕 何 様 方 為 事'
  ).split(' '),
);

const SCRIPT_RUN = /(\p{Script=Han}+)|([\p{Script=Hiragana}\p{Script=Katakana}ー]+)|([^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]+)/gu;
const KATAKANA_WORD = /[\p{Script=Katakana}ー]{2,}/gu;

export interface Translation {
  /** Every kept gloss and Latin run, for BM25. */
  readonly lexical: string;
  /** Term weights (Latin runs weigh 1, a word's glosses share 1) and one term group per word. */
  readonly terms: GroupedTerms;
  /** The first gloss of each word and the Latin runs, in order: a sentence for the encoder. */
  readonly dense: string;
}

let segmenter: Intl.Segmenter | undefined;
function words(run: string): string[] {
  segmenter ??= new Intl.Segmenter('zh', { granularity: 'word' });
  return Array.from(segmenter.segment(run), (part) => part.segment);
}

/** Dictionary words of a (simplified) Han run, longest match over segment boundaries first; `reversed`: Japanese (see `swapReversed`). */
export function segmentHan(run: string, dictionary: Dictionary, options: { readonly reversed?: boolean } = {}): string[] {
  const segments = words(options.reversed === true ? swapReversed(run, dictionary) : run);
  const out: string[] = [];
  let i = 0;
  while (i < segments.length) {
    // Longest run of whole segments that is a headword.
    let joined = '';
    let best = -1;
    for (let j = i; j < segments.length; j += 1) {
      joined += segments[j]!;
      if (joined.length > dictionary.maxLength) break;
      if (dictionary.has(joined)) best = j;
    }
    if (best >= 0) {
      out.push(segments.slice(i, best + 1).join(''));
      i = best + 1;
      continue;
    }
    // The segmenter's word is unknown: longest match inside it, character by character.
    const chars = Array.from(segments[i]!);
    let at = 0;
    while (at < chars.length) {
      let length = Math.min(dictionary.maxLength, chars.length - at);
      while (length > 1 && !dictionary.has(chars.slice(at, at + length).join(''))) length -= 1;
      out.push(chars.slice(at, at + length).join(''));
      at += length;
    }
    i += 1;
  }
  return out;
}

/**
 * Japanese writes some compounds in the reverse of the Chinese order (脅威 / 威胁 "threat", 制限 / 限制 "restrict"):
 * a character pair that is no headword, in no three-character headword, whose reverse is one, is swapped.
 */
function swapReversed(run: string, dictionary: Dictionary): string {
  const chars = Array.from(run);
  for (let i = 0; i + 1 < chars.length; i += 1) {
    const pair = chars[i]! + chars[i + 1]!;
    const reversed = chars[i + 1]! + chars[i]!;
    if (dictionary.has(pair) || !dictionary.has(reversed)) continue;
    if ((i > 0 && dictionary.has(chars[i - 1]! + pair)) || (i + 2 < chars.length && dictionary.has(pair + chars[i + 2]!))) continue;
    chars[i] = reversed[0]!;
    chars[i + 1] = reversed[1]!;
    i += 1;
  }
  return chars.join('');
}

export interface TranslateOptions {
  /** Katakana words → English; without it katakana is dropped. */
  readonly loanwords?: LoanwordMatcher;
  /** See `CrossLingualOptions.glossWeights`. */
  readonly glossWeights?: readonly number[];
  /** Chooses each Han word's glosses (`CatalogueVocabulary.choose`); without it, the dictionary's first ones. */
  readonly vocabulary?: CatalogueVocabulary;
  /** The text is Japanese (see `swapReversed`). @default false */
  readonly japanese?: boolean;
}

/** A run of Latin text, or one translated word's candidate glosses (`fixed`: loanwords, not chosen among). */
type Piece = { readonly latin: string } | { readonly glosses: readonly string[]; readonly fixed: boolean };

/** Translates the Han parts of `text` to English; everything else Latin stays. */
export function translate(text: string, dictionary: Dictionary, options: TranslateOptions = {}): Translation {
  const { loanwords, glossWeights = CROSS_LINGUAL_DEFAULTS.glossWeights, vocabulary } = options;
  const lexical: string[] = [];
  const dense: string[] = [];
  const weights = new Map<string, number>();
  const groups: string[][] = [];
  const addWord = (glosses: readonly string[]): void => {
    const shares = glosses.map((_, i) => glossWeights[i] ?? 0);
    const total = shares.reduce((sum, share) => sum + share, 0);
    const group: string[] = [];
    glosses.forEach((gloss, i) => {
      lexical.push(gloss);
      for (const term of tokenize(gloss)) {
        weights.set(term, Math.min(1, (weights.get(term) ?? 0) + shares[i]! / total));
        if (!group.includes(term)) group.push(term);
      }
    });
    if (group.length > 0) groups.push(group);
    dense.push(glosses[0]!);
  };
  const pieces: Piece[] = [];
  for (const match of text.matchAll(SCRIPT_RUN)) {
    const [, han, kana, other] = match;
    if (kana !== undefined) {
      if (loanwords === undefined) continue;
      for (const [word] of kana.matchAll(KATAKANA_WORD)) {
        const english = loanwords.match(word);
        if (english.length > 0) pieces.push({ glosses: english, fixed: true });
      }
      continue;
    }
    if (other !== undefined) {
      if (/[\p{L}\p{N}]/u.test(other)) pieces.push({ latin: other });
      continue;
    }
    if (han === undefined) continue;
    for (const word of segmentHan(dictionary.normalize(han), dictionary, { reversed: options.japanese === true })) {
      const glosses = STOP.has(word) ? undefined : dictionary.lookup(word);
      if (glosses !== undefined) pieces.push({ glosses, fixed: false });
    }
  }
  if (vocabulary !== undefined) joinCompounds(pieces, vocabulary);
  const chosen =
    vocabulary === undefined
      ? pieces.map((piece) => ('latin' in piece ? [] : piece.fixed ? piece.glosses : piece.glosses.slice(0, MAX_GLOSSES)))
      : vocabulary.choose(pieces.map((piece) => ('latin' in piece ? { glosses: [piece.latin], fixed: true } : piece)));
  pieces.forEach((piece, i) => {
    if (!('latin' in piece)) {
      addWord(chosen[i]!);
      return;
    }
    lexical.push(piece.latin);
    dense.push(piece.latin.trim());
    for (const term of new Set(tokenize(piece.latin))) {
      weights.set(term, 1);
      groups.push([term]);
    }
  });
  return { lexical: lexical.join(' '), terms: { weights, groups }, dense: dense.join(' ') };
}

/** Inserts after a translated word or adjacent pair the catalogue term their glosses spell as one word (热力图 → "heatmap"), as a fixed word. */
function joinCompounds(pieces: Piece[], vocabulary: CatalogueVocabulary): void {
  const isWord = (piece: Piece | undefined): piece is Extract<Piece, { glosses: readonly string[] }> =>
    piece !== undefined && !('latin' in piece) && !piece.fixed;
  for (let i = 0; i < pieces.length; i += 1) {
    const piece = pieces[i];
    if (!isWord(piece)) continue;
    const next = pieces[i + 1];
    const pair = isWord(next) ? vocabulary.compound(piece.glosses, next.glosses) : undefined;
    const joined = pair ?? vocabulary.compound(piece.glosses);
    if (joined === undefined) continue;
    const at = pair === undefined ? i + 1 : i + 2;
    pieces.splice(at, 0, { glosses: [joined], fixed: true });
    i = at;
  }
}
