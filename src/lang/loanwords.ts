import { getOrAdd } from '../util/get-or-add.js';

/**
 * Katakana loanwords (テスト, パイプライン) matched to the catalog's English words: both reduced to a
 * consonant skeleton that survives borrowing (l/r and b/v merge, vowels drop, `tion` is `shon`).
 */

/** Katakana → Hepburn-style romaji. Small kana replace the vowel before them; ッ and ー only lengthen. */
const KANA: Readonly<Record<string, string>> = Object.fromEntries(
  (
    'ア a イ i ウ u エ e オ o カ ka キ ki ク ku ケ ke コ ko ガ ga ギ gi グ gu ゲ ge ゴ go ' +
    'サ sa シ shi ス su セ se ソ so ザ za ジ ji ズ zu ゼ ze ゾ zo タ ta チ chi ツ tsu テ te ト to ' +
    'ダ da ヂ ji ヅ zu デ de ド do ナ na ニ ni ヌ nu ネ ne ノ no ハ ha ヒ hi フ fu ヘ he ホ ho ' +
    'バ ba ビ bi ブ bu ベ be ボ bo パ pa ピ pi プ pu ペ pe ポ po マ ma ミ mi ム mu メ me モ mo ' +
    'ヤ ya ユ yu ヨ yo ラ ra リ ri ル ru レ re ロ ro ワ wa ヲ o ン n ヴ vu ' +
    'ァ a ィ i ゥ u ェ e ォ o ャ ya ュ yu ョ yo ッ _ ー _'
  )
    .match(/\S+ \S+/g)!
    .map((pair) => pair.split(' ') as [string, string]),
);

/** `long`: ー is kept as ":" (else it is dropped, as ッ is). */
export function romanize(katakana: string, long = false): string {
  let out = '';
  for (const char of katakana) {
    const kana = long && char === 'ー' ? ':' : (KANA[char] ?? '').replace('_', '');
    // A small kana after a consonant's kana replaces its vowel: ティ ti, フォ fo, キャ kya, ジョ jo (not tei, fuo, kiya, jiyo).
    if (SMALL.test(char) && /[^aeiou][aeiou]$/.test(out)) out = out.slice(0, -1) + (/(sh|ch|j)$/.test(out.slice(0, -1)) ? kana.replace('y', '') : kana);
    else out += kana;
  }
  return out;
}

const SMALL = /[ァィゥェォャュョ]/;

/** Shared tail of both skeletons: l/r, b/v, z/s merge; n before a labial is m; vowels, y, w go; repeats collapse. */
function consonants(text: string): string {
  return text
    .replace(/l/g, 'r')
    .replace(/v/g, 'b')
    .replace(/z/g, 's')
    .replace(/n(?=[bpm])/g, 'm')
    .replace(/[aeiouyw]/g, '')
    .replace(/(.)\1+/g, '$1');
}

/** The consonant skeleton of a romanized katakana word. */
function romajiSkeleton(romaji: string): string {
  // h goes as in English words, where it is mostly silent or part of a digraph (ハンドリング = handling, "andring").
  return consonants(romaji.replace(/sh/g, 's').replace(/ch/g, 'c').replace(/ts/g, 't').replace(/h/g, ''));
}

/**
 * Every skeleton of `word` as spelled: ch read as k (schema), as the ch sound (branch) and as sh (cache), each also
 * without the non-prevocalic r Japanese borrows as a long vowel (form → フォーム, server → サーバー, chart → チャート).
 */
function spelledSkeletons(word: string): string[] {
  const spellings = (['k', 'c', 's'] as const).map((ch) => borrowedSpelling(word, ch));
  return [...new Set([...spellings, ...spellings.map(withoutNonPrevocalicR)].map(consonants))];
}

/** `text` without the r Japanese borrows as a long vowel: after a vowel and not before one (form → fom, cluster → cluste). */
function withoutNonPrevocalicR(text: string): string {
  return text.replace(/(?<=[aeiou])r+(?![aeiouy])/g, '');
}

/** `word` spelled as Japanese hears it; ch is read `ch`: k (schema), c, the ch of チ (branch), or s, the sh of シ (cache). */
function borrowedSpelling(word: string, ch: 'k' | 'c' | 's' = 'k'): string {
  const spelled = word
    .toLowerCase()
    .replace(/[^a-z]/g, '')
    // A single s of -sion after a vowel or r is voiced (version バージョン, decision ディシジョン); ss and ts are not.
    .replace(/(?<=[aeiour])sion/g, 'jon')
    .replace(/[ts]ion/g, 'shon')
    .replace(/ph/g, 'f')
    .replace(/th/g, 's')
    .replace(/gh/g, '')
    .replace(/ck/g, 'k')
    .replace(/qu?/g, 'k')
    .replace(/x/g, 'ks')
    .replace(/c(?=[eiy])/g, 's')
    .replace(/g(?=[eiy])/g, 'j')
    .replace(/sh/g, 's');
  // ch as asked (c as romajiSkeleton spells チ); a lone c is k either way.
  return spelled.replace(/ch/g, 'C').replace(/c/g, 'k').replace(/C/g, ch).replace(/h/g, '');
}

/** Skeletons shorter than this match too many unrelated words (クエリ "kr", エラー "r") unless the vowels agree too. */
const MIN_SKELETON = 3;
/** English words kept per loanword. */
const MAX_MATCHES = 2;
/** Single words per skeleton considered for a whole loanword, most frequent first. */
const MAX_CANDIDATES = 8;

/** The words following `first` in the catalog (each in a word pair), with how many skills have the pair. */
export type Followers = (first: string) => ReadonlyMap<string, number>;

/** A candidate word of a skeleton; `singular`: matched only once its plural s is dropped. */
interface Candidate {
  readonly word: string;
  readonly singular: boolean;
  /** Skills using the word. */
  readonly count: number;
}

/**
 * Katakana words → English words of one vocabulary. Only single words are reduced to skeletons up front; a word pair
 * (リリースノート: release notes) is found at match time by splitting the katakana into two words' skeletons.
 */
export class LoanwordMatcher {
  /** Skeleton → every word with it, most frequent first. */
  readonly #bySkeleton = new Map<string, Candidate[]>();
  readonly #followers: Followers;
  readonly #frequencies: ReadonlyMap<string, number>;
  #lookups = 0;

  /** `frequencies`: English word → how many skills use it; `followers`: the catalog's word pairs (none when not given). */
  constructor(frequencies: ReadonlyMap<string, number>, followers: Followers = () => NONE) {
    this.#frequencies = frequencies;
    this.#followers = followers;
    for (const [word, count] of [...frequencies].sort(byFrequency)) {
      for (const [skeleton, singular] of skeletonsOf(word)) {
        if (skeleton !== '') getOrAdd(this.#bySkeleton, skeleton, () => []).push({ word, singular, count });
      }
    }
  }

  /** Words looked up with a skeleton long enough to match (with none, glosses do not depend on the vocabulary). */
  get lookups(): number {
    return this.#lookups;
  }

  /**
   * The English words a katakana word stands for ([] when none): single words spelled nearest its length (パイプライン:
   * pipeline, not plan), most frequent first at equal length; unless one is within `CLOSE` letters of it, a word pair
   * the katakana splits into (リリース|ノート: release notes) stands alone instead (recent shares the skeleton), and a
   * pair it does not split into is dropped (パイプライン is not "apply when").
   */
  match(katakana: string): readonly string[] {
    const romaji = romanize(katakana);
    const skeleton = romajiSkeleton(romaji);
    if (skeleton === '') return [];
    this.#lookups += 1;
    if (skeleton.length < MIN_SKELETON) return this.#matchShort(katakana, romaji, skeleton);
    const candidates = (this.#bySkeleton.get(skeleton) ?? []).slice(0, MAX_CANDIDATES);
    const length = withoutEpenthesis(romaji).length;
    const distance = (candidate: Candidate): number => Math.abs(borrowedLength(candidate) - length);
    // Words within CLOSE letters of its length are equally near (ライブラリ: library, not the rarer reliable at its exact
    // length); among equally near ones the word more skills use, its plural counted (コンテナ: container(s), not contain),
    // then one matched as spelled before a plural (セキュリティ: security, not securities).
    const near = (candidate: Candidate): number => Math.max(distance(candidate), CLOSE);
    let singles = candidates
      .filter(({ word }) => sameOnset(romaji, word))
      .sort((a, b) => near(a) - near(b) || this.#family(b) - this.#family(a) || Number(a.singular) - Number(b.singular));
    if (singles[0]?.singular === false) singles = singles.filter(({ singular }) => !singular);
    const ranked = singles.map(({ word }) => word);
    if (singles.length > 0 && distance(singles[0]!) <= CLOSE) return ranked.slice(0, MAX_MATCHES);
    const pairs = this.#pairsOf(katakana, skeleton);
    return (pairs.length > 0 ? pairs : ranked).slice(0, MAX_MATCHES);
  }

  /**
   * A loanword of one or two consonants (エラー, ログ, レビュー): the words of its skeleton whose vowels Japanese would
   * borrow as the loanword's ({@link vowelsAgree}), most used first, one spelled as written before a plural.
   */
  #matchShort(katakana: string, romaji: string, skeleton: string): readonly string[] {
    const heard = kanaVowels(katakana);
    let fitting = (this.#bySkeleton.get(skeleton) ?? [])
      .filter((candidate) => sameOnset(romaji, candidate.word) && vowelsAgree(heard, candidate))
      .sort((a, b) => this.#family(b) - this.#family(a) || Number(a.singular) - Number(b.singular));
    if (fitting[0]?.singular === false) fitting = fitting.filter(({ singular }) => !singular);
    return fitting.slice(0, MAX_MATCHES).map(({ word }) => word);
  }

  /** Skills using a candidate's word or its plural (or singular, for a plural matched as its singular). */
  #family({ word, singular }: Candidate): number {
    const lemma = singular ? word.slice(0, -1) : word;
    return (this.#frequencies.get(lemma) ?? 0) + (this.#frequencies.get(`${lemma}s`) ?? 0);
  }

  /** The catalog's word pairs `katakana` splits into, whole skeleton `skeleton` too, most frequent first. */
  #pairsOf(katakana: string, skeleton: string): string[] {
    const found = new Map<string, number>();
    const chars = Array.from(katakana);
    for (let i = 1; i < chars.length; i += 1) {
      const firsts = this.#partWords(chars.slice(0, i).join(''), false);
      if (firsts.length === 0) continue;
      const seconds = new Set(this.#partWords(chars.slice(i).join(''), true));
      for (const first of firsts) {
        const followers = this.#followers(first);
        const fitting =
          followers.size <= seconds.size ? [...followers.keys()].filter((word) => seconds.has(word)) : [...seconds].filter((word) => followers.has(word));
        for (const second of fitting) {
          const pair = `${first} ${second}`;
          if (!found.has(pair) && skeletonsOf(pair).has(skeleton)) found.set(pair, followers.get(second)!);
        }
      }
    }
    // Like a single word, a pair is a candidate only among the skeleton's most frequent terms (セキュリティ is not "cisco router").
    const terms: [string, number][] = [...(this.#bySkeleton.get(skeleton) ?? []).map(({ word, count }): [string, number] => [word, count]), ...found];
    const ranked = new Set(
      terms
        .sort(byFrequency)
        .slice(0, MAX_CANDIDATES)
        .map(([term]) => term),
    );
    return [...found]
      .filter(([pair]) => ranked.has(pair))
      .sort(byFrequency)
      .map(([pair]) => pair);
  }

  /** The words one part of a split loanword may be: its skeleton, its onset, and (unless `last`) not a dropped plural. */
  #partWords(part: string, last: boolean): string[] {
    const romaji = romanize(part);
    const skeleton = romajiSkeleton(romaji);
    if (skeleton.length < MIN_PART) return [];
    const words = this.#bySkeleton.get(skeleton) ?? [];
    // Only the last word may be a plural the katakana drops (ユニットテスト = unit tests, but トレー is not "trees").
    return words.filter(({ word, singular }) => (last || !singular) && sameOnset(romaji, word)).map(({ word }) => word);
  }
}

const NONE: ReadonlyMap<string, number> = new Map();

/** Most frequent first, then alphabetical. */
function byFrequency([a, x]: readonly [string, number], [b, y]: readonly [string, number]): number {
  return y - x || (a < b ? -1 : 1);
}

/** A single word within this many letters of a loanword's length is taken over any word pair (リクエスト: request, not "work that"). */
const CLOSE = 1;

/** Consonants each half of a split loanword needs (パイプラ|イン is not apply|when: "n" fits too much). */
const MIN_PART = 2;

/**
 * Word frequencies and word pairs of a catalog from each skill's words in order (`lists`), for {@link LoanwordMatcher}:
 * words of three letters or more; a pair is two such words side by side. Pairs are counted per first word when asked.
 */
export function catalogWords(lists: readonly (readonly string[])[]): { frequencies: Map<string, number>; followers: Followers } {
  const postings = new Map<string, number[]>();
  lists.forEach((list, index) => {
    for (const word of new Set(list)) if (WORD.test(word)) getOrAdd(postings, word, () => []).push(index);
  });
  const frequencies = new Map<string, number>();
  for (const [word, skills] of postings) frequencies.set(word, skills.length);
  const cache = new Map<string, Map<string, number>>();
  const followers = (first: string): ReadonlyMap<string, number> =>
    getOrAdd(cache, first, () => {
      const counts = new Map<string, number>();
      for (const index of postings.get(first) ?? []) {
        const list = lists[index]!;
        const seen = new Set<string>();
        list.forEach((word, i) => {
          const next = list[i + 1];
          if (word !== first || next === undefined || seen.has(next) || !WORD.test(next)) return;
          seen.add(next);
          counts.set(next, (counts.get(next) ?? 0) + 1);
        });
      }
      return counts;
    });
  return { frequencies, followers };
}

/** A catalog word a loanword may stand for. */
const WORD = /^[a-z]{3,}$/;

/** Every skeleton Japanese may borrow `word` (or a word pair) as (as spelled, without non-prevocalic r), and whether only its singular has it. */
function skeletonsOf(word: string): Map<string, boolean> {
  const out = new Map<string, boolean>();
  const forms: [string, boolean][] = /[^s]s$/.test(word)
    ? [
        [word, false],
        [word.slice(0, -1), true],
      ]
    : [[word, false]];
  for (const [form, singular] of forms) {
    for (const skeleton of spelledSkeletons(form)) {
      if (!out.has(skeleton)) out.set(skeleton, singular);
    }
  }
  return out;
}

/** A candidate's length as Japanese borrows it: its singular when matched as one, without non-prevocalic r (cluster: "cluste"). */
function borrowedLength({ word, singular }: Candidate): number {
  return withoutNonPrevocalicR(singular ? word.slice(0, -1) : word).length;
}

/** Romaji without the vowels Japanese adds after a consonant (テスト tesuto → test): u, and o after t or d, before a consonant or the end. */
function withoutEpenthesis(romaji: string): string {
  return romaji.replace(/(?<=[^aeiou])u(?![aeiou])|(?<=[td])o(?![aeiou])/g, '');
}

/** Whether both start with a vowel or both with a consonant (シング is not "using"; ユ counts as the vowel u). */
function sameOnset(romaji: string, english: string): boolean {
  return /^[aeiouy]/.test(romaji) === /^[aeiouy]/.test(english);
}

/**
 * The vowels of a loanword as heard, ー kept as a long mark (サーバー: "a:a:"): a u gliding into the next vowel (クエ
 * kue) and the added vowels go (u, o after t or d, a final i after j or ch: ページ page), yu (ユ, ビュー) is one sound
 * ü, and the y of キャ is dropped.
 */
function kanaVowels(katakana: string): string {
  return romanize(katakana, true)
    .replace(/(?<=[^aeiou])u(?=[aeio])/g, '')
    .replace(/yu/g, 'ü')
    .replace(/(?<=[^aeiou:])u(?![aeiou:])|(?<=[td])o(?![aeiou:])|(?<=j|ch)i$/g, '')
    .replace(/[^aeiouü:]/g, '');
}

/** How Japanese borrows each English vowel spelling (a: the a of cache or the e of data); others go letter by letter. */
const BORROWED_VOWELS: Readonly<Record<string, string>> = {
  a: 'a|e',
  e: 'e|i',
  i: 'i|ai',
  o: 'o|a',
  u: 'a|u|ü',
  y: 'i|ai',
  ai: 'ei|e',
  ay: 'ei|e',
  au: 'o',
  aw: 'o',
  ea: 'i|e',
  ee: 'i',
  ei: 'ei|e|ai|i',
  ey: 'ei|e|i',
  eu: 'ü',
  ew: 'ü',
  eue: 'ü',
  ie: 'ai|i',
  iew: 'ü',
  oa: 'o',
  oi: 'oi',
  oy: 'oi',
  oo: 'u',
  ou: 'au|a|o|u',
  ow: 'au|o',
  ue: 'ü|e',
};

/** A vowel lengthened by a silent final e after one consonant (code コード, page ページ, file ファイル). */
const BEFORE_SILENT_E: Readonly<Record<string, string>> = { a: 'ei|e', e: 'i', i: 'ai', o: 'o', u: 'ü|u' };

/**
 * Whether `heard` (a loanword's {@link kanaVowels}) is how Japanese borrows a candidate's vowels. qu is k (query クエリ:
 * "ei"); a final e after a consonant is silent and lengthens the vowel before it (code コード); a vowel before a
 * non-prevocalic r is a long a (server サーバー, alert アラート), or o for an o not at the word's end (form フォーム), the
 * length optional at the end (error エラー, user ユーザ); one vowel letter closed by consonants is short (chat チャット,
 * not チャート), any other may be long or not.
 */
function vowelsAgree(heard: string, { word, singular }: Candidate): boolean {
  const bare = (singular ? word.slice(0, -1) : word).replace(/qu/g, 'k').replace(/^y/, '');
  const silentE = /^.+[aeiouy][^aeiouy]e$/.test(bare) && bare.length > 3;
  const form = silentE || /^.{3,}[^aeiouy]e$/.test(bare) ? bare.slice(0, -1) : bare;
  let pattern = '';
  for (const match of form.matchAll(/([aeiouy]+(?:w(?![aeiouy]))?)(r(?![aeiouyr]))?/g)) {
    const [, group, r] = match as unknown as [string, string, string | undefined];
    const after = form.slice(match.index + match[0].length);
    if (r !== undefined) {
      pattern += `(?:${/o/.test(group) && after !== '' ? 'o' : 'a'}):${after === '' ? '?' : ''}`;
    } else if (silentE && after.length === 1) {
      pattern += `(?:${BEFORE_SILENT_E[group] ?? BORROWED_VOWELS[group] ?? group}):?`;
    } else {
      const vowels = BORROWED_VOWELS[group] ?? [...group].map((letter) => `(?:${BORROWED_VOWELS[letter]})`).join('');
      const closed = group.length === 1 && /^(?:[^aeiouy]{2}|[^aeiouy]$|$)/.test(after);
      pattern += `(?:${vowels})${closed ? '' : ':?'}`;
    }
  }
  return new RegExp(`^${pattern}$`).test(heard);
}
