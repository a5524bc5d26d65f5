/** Script-based language detection, one pass and no data; `en` stands for every Latin-script language. */

export const LANGUAGES = ['en', 'zh', 'ja', 'ko'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Any character outside Latin-1 and general punctuation; an ASCII message stops at the first test. */
const BEYOND_LATIN = /[^\u0000-\u024f\u2000-\u206f]/u;
const HAN = /\p{Script=Han}/u;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HANGUL = /\p{Script=Hangul}/u;
const LATIN_WORD = /[A-Za-z\u00c0-\u024f]+/g;

/** The language of `text` by script: each CJK character and each Latin word counts one; kana makes Han text Japanese. */
export function detectLanguage(text: string): Language {
  if (!BEYOND_LATIN.test(text)) return 'en';
  let han = 0;
  let kana = 0;
  let hangul = 0;
  for (const char of text) {
    if (HAN.test(char)) han += 1;
    else if (KANA.test(char)) kana += 1;
    else if (HANGUL.test(char)) hangul += 1;
  }
  const latin = text.match(LATIN_WORD)?.length ?? 0;
  const cjk = han + kana + hangul;
  if (cjk === 0 || latin > cjk) return 'en';
  if (hangul > han + kana) return 'ko';
  return kana > 0 ? 'ja' : 'zh';
}

/** True when `text` has characters the language step translates: Han (the dictionary) or kana (Japanese loanwords). */
export function hasHanOrKana(text: string): boolean {
  return BEYOND_LATIN.test(text) && (HAN.test(text) || KANA.test(text));
}

/** The most frequent language (ties go to English); `en` for none. */
export function majority(languages: Iterable<Language>): Language {
  const counts = new Map<Language, number>();
  for (const language of languages) counts.set(language, (counts.get(language) ?? 0) + 1);
  let best: Language = 'en';
  for (const [language, count] of counts) if (count > (counts.get(best) ?? 0)) best = language;
  return best;
}
