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
  return consonants(romaji.replace(/sh/g, 's').replace(/ch/g, 'c').replace(/ts/g, 't'));
}

/** The consonant skeleton of an English word, spelled as it would be borrowed. */
export function englishSkeleton(word: string): string {
  const spelled = word
    .toLowerCase()
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
  return consonants(spelled);
}

/** Skeletons shorter than this match too many unrelated words (クエリ "kr", エラー "r"). */
const MIN_SKELETON = 3;
/** English words kept per loanword, most frequent first. */
const MAX_MATCHES = 2;

/** Katakana words → English words of one vocabulary. */
export class LoanwordMatcher {
  readonly #bySkeleton = new Map<string, string[]>();
  #lookups = 0;

  /** `frequencies`: English word → how many skills use it. */
  constructor(frequencies: ReadonlyMap<string, number>) {
    const ranked = [...frequencies].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
    for (const [word] of ranked) {
      const skeleton = englishSkeleton(word);
      if (skeleton.length < MIN_SKELETON) continue;
      const words = this.#bySkeleton.get(skeleton);
      if (words === undefined) this.#bySkeleton.set(skeleton, [word]);
      else if (words.length < MAX_MATCHES) words.push(word);
    }
  }

  /** Words looked up with a skeleton long enough to match (with none, glosses do not depend on the vocabulary). */
  get lookups(): number {
    return this.#lookups;
  }

  /** The English words a katakana word stands for, most frequent first ([] when none). */
  match(katakana: string): readonly string[] {
    const skeleton = romajiSkeleton(romanize(katakana));
    if (skeleton.length < MIN_SKELETON) return [];
    this.#lookups += 1;
    return this.#bySkeleton.get(skeleton) ?? [];
  }
}
