/**
 * Katakana loanwords (テスト, パイプライン) matched to the catalog's English words: both reduced to a
 * consonant skeleton that survives borrowing (l/r and b/v merge, vowels drop, `tion` is `shon`).
 */

/** Katakana → Hepburn-style romaji. Small vowels and ャュョ spell on; ッ and ー only lengthen. */
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

export function romanize(katakana: string): string {
  let out = '';
  for (const char of katakana) out += (KANA[char] ?? '').replace('_', '');
  return out;
}

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
export function romajiSkeleton(romaji: string): string {
  // h goes as in English words, where it is mostly silent or part of a digraph (ハンドリング = handling, "andring").
  return consonants(romaji.replace(/sh/g, 's').replace(/ch/g, 'c').replace(/ts/g, 't').replace(/h/g, ''));
}

/** The consonant skeleton of an English word, spelled as it would be borrowed (a phrase's words are joined). */
export function englishSkeleton(word: string): string {
  return consonants(borrowedSpelling(word));
}

/**
 * Japanese borrows a non-prevocalic r as a long vowel (form → フォーム, server → サーバー): the skeleton of `word`
 * with that r dropped, or undefined when it has none.
 */
function nonRhoticSkeleton(word: string): string | undefined {
  const spelled = borrowedSpelling(word);
  const dropped = spelled.replace(/(?<=[aeiou])r+(?![aeiouy])/g, '');
  return dropped === spelled ? undefined : consonants(dropped);
}

function borrowedSpelling(word: string): string {
  return word
    .toLowerCase()
    .replace(/[^a-z]/g, '')
    .replace(/[ts]ion/g, 'shon')
    .replace(/ph/g, 'f')
    .replace(/th/g, 's')
    .replace(/gh/g, '')
    .replace(/ck/g, 'k')
    .replace(/qu?/g, 'k')
    .replace(/x/g, 'ks')
    .replace(/c(?=[eiy])/g, 's')
    .replace(/g(?=[eiy])/g, 'j')
    .replace(/sh/g, 's')
    .replace(/ch/g, 'c')
    .replace(/c/g, 'k')
    .replace(/h/g, '');
}

/** Skeletons shorter than this match too many unrelated words (クエリ "kr", エラー "r"). */
const MIN_SKELETON = 3;
/** English words kept per loanword. */
const MAX_MATCHES = 2;
/** Candidates kept per skeleton, most frequent first, before word pairs are checked. */
const MAX_CANDIDATES = 8;

/** Katakana words → English words of one vocabulary. */
export class LoanwordMatcher {
  /** Skeleton → candidate words, most frequent first; `singular`: matched only once its plural s is dropped. */
  readonly #bySkeleton = new Map<string, { readonly word: string; readonly singular: boolean }[]>();
  #lookups = 0;

  /** `frequencies`: English word (or two-word phrase, `release notes`) → how many skills use it. */
  constructor(frequencies: ReadonlyMap<string, number>) {
    const ranked = [...frequencies].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
    for (const [word] of ranked) {
      for (const [skeleton, singular] of skeletonsOf(word)) {
        if (skeleton.length < MIN_SKELETON) continue;
        const words = this.#bySkeleton.get(skeleton);
        if (words === undefined) this.#bySkeleton.set(skeleton, [{ word, singular }]);
        else if (words.length < MAX_CANDIDATES) words.push({ word, singular });
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
    const skeleton = romajiSkeleton(romanize(katakana));
    if (skeleton.length < MIN_SKELETON) return [];
    this.#lookups += 1;
    const candidates = this.#bySkeleton.get(skeleton) ?? [];
    const romaji = romanize(katakana);
    let singles = candidates.filter(({ word }) => !word.includes(' ') && sameOnset(romaji, word));
    // A word matched as spelled outranks another's plural (セキュリティ: security, not secrets).
    if (singles.some(({ singular }) => !singular)) singles = singles.filter(({ singular }) => !singular);
    // Those spelled nearest its length first (stable: most frequent first at equal distance).
    const length = withoutEpenthesis(romaji).length;
    const distance = (word: string): number => Math.abs(word.length - length);
    const ranked = singles.map(({ word }) => word).sort((a, b) => distance(a) - distance(b));
    if (ranked.length > 0 && distance(ranked[0]!) <= CLOSE) return ranked.slice(0, MAX_MATCHES);
    const pairs = candidates.filter(({ word }) => word.includes(' ') && splitsInto(katakana, word)).map(({ word }) => word);
    return (pairs.length > 0 ? pairs : ranked).slice(0, MAX_MATCHES);
  }
}

/** A single word within this many letters of a loanword's length is taken over any word pair (リクエスト: request, not "work that"). */
const CLOSE = 1;

/** Consonants each half of a split loanword needs (パイプラ|イン is not apply|when: "n" fits too much). */
const MIN_PART = 2;

/** Whether `katakana` splits into two parts with the skeletons of the two words of `pair`. */
function splitsInto(katakana: string, pair: string): boolean {
  const [first, second] = pair.split(' ') as [string, string];
  // Only the last word may be a plural the katakana drops (ユニットテスト = unit tests, but トレー is not "trees").
  const fits = (part: string, word: string, last: boolean): boolean => {
    const romaji = romanize(part);
    const skeleton = romajiSkeleton(romaji);
    if (skeleton.length < MIN_PART || !sameOnset(romaji, word)) return false;
    const skeletons = skeletonsOf(word);
    return skeletons.has(skeleton) && (last || skeletons.get(skeleton) === false);
  };
  const chars = Array.from(katakana);
  for (let i = 1; i < chars.length; i += 1) {
    if (fits(chars.slice(0, i).join(''), first, false) && fits(chars.slice(i).join(''), second, true)) return true;
  }
  return false;
}

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
    for (const skeleton of [englishSkeleton(form), nonRhoticSkeleton(form)]) {
      if (skeleton !== undefined && !out.has(skeleton)) out.set(skeleton, singular);
    }
  }
  return out;
}

/** Romaji without the vowels Japanese adds after a consonant (テスト tesuto → test): u, and o after t or d, before a consonant or the end. */
function withoutEpenthesis(romaji: string): string {
  return romaji.replace(/(?<=[^aeiou])u(?![aeiou])|(?<=[td])o(?![aeiou])/g, '');
}

/** Whether both start with a vowel or both with a consonant (シング is not "using"; ユ counts as the vowel u). */
function sameOnset(romaji: string, english: string): boolean {
  return /^[aeiouy]/.test(romaji) === /^[aeiouy]/.test(english);
}
