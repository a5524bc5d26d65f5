/**
 * The `<system-reminder>` envelope and the one sanitiser every piece of skill text passes
 * through before it is placed inside it.
 */

export const SYSTEM_REMINDER_OPEN = '<system-reminder>';
export const SYSTEM_REMINDER_CLOSE = '</system-reminder>';

// C0 controls except \t (\u0009) and \n (\u000A), DEL, and C1 controls: not text in a skill.
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;
// What a reader of tags looks through: code points without a glyph of their own. Unicode's
// default-ignorables (joiners, variation selectors U+FE00–FE0F, U+034F, the Hangul fillers
// U+115F, U+1160, U+3164, U+FFA0, tag characters), other format characters, combining marks,
// every kind of space and line break, and the blank braille pattern U+2800.
const INVISIBLE = /^[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cc}\p{Mn}\p{Me}\p{Z}\s\u2800]$/u;
// `<` and its compatibility forms (small and full-width): candidates for a tag's start.
const LESS_THAN = /[<\uFE64\uFF1C]/g;
// `/` as written or as a look-alike a reader would take for one.
const SLASHES = new Set(['/', '\uFF0F', '\u2215', '\u2044', '\u29F8']);
// Between `system` and `reminder`: a hyphen of any kind, or an underscore.
const SEPARATOR = /^[\p{Pd}_\uFF3F\uFE4D\uFE4E\uFE4F]$/u;

/** The index after a run of invisible code points starting at `from`. */
function skipInvisible(text: string, from: number): number {
  let at = from;
  while (at < text.length) {
    const char = String.fromCodePoint(text.codePointAt(at)!);
    if (!INVISIBLE.test(char)) break;
    at += char.length;
  }
  return at;
}

/**
 * The index after `word` read from `from` as a reader sees it (each code point folded by NFKC
 * and lower-cased, so `ＳＹＳＴＥＭ`, `𝐬𝐲𝐬𝐭𝐞𝐦` or `ﬆ` count; invisible code points between its
 * letters skipped), or -1 when the text there is not that word.
 */
function readWord(text: string, from: number, word: string): number {
  let at = from;
  let matched = 0;
  while (matched < word.length) {
    at = skipInvisible(text, at);
    if (at >= text.length) return -1;
    const char = String.fromCodePoint(text.codePointAt(at)!);
    const folded = char.normalize('NFKC').toLowerCase();
    if (folded === '' || !word.startsWith(folded, matched)) return -1;
    matched += folded.length;
    at += char.length;
  }
  return at;
}

/** Whether the `<` at `start` opens or closes a `system-reminder` tag to a reader. */
function startsReminderTag(text: string, start: number): boolean {
  let at = skipInvisible(text, start + 1);
  if (at < text.length && SLASHES.has(text[at]!)) at = skipInvisible(text, at + 1);
  at = readWord(text, at, 'system');
  if (at < 0) return false;
  at = skipInvisible(text, at);
  const separator = at < text.length ? String.fromCodePoint(text.codePointAt(at)!) : '';
  if (SEPARATOR.test(separator)) at += separator.length;
  return readWord(text, at, 'reminder') >= 0;
}

/**
 * Make untrusted skill text safe to place inside a `<system-reminder>`: line endings become
 * `\n`, control characters are removed (`\n` and `\t` are kept), and every `<` that a reader
 * would take for the start of a `system-reminder` tag becomes `&lt;`, so the text can neither
 * close the reminder early nor open a fake one. The tag is found as a reader sees it: any run
 * of invisible code points around its parts (zero-width, variation selectors, Hangul fillers,
 * combining marks, spaces), compatibility and look-alike forms of `<`, `/` and its letters.
 * Nothing else is rewritten: `ＰＤＦ`, `…`, emoji sequences stay as written.
 *
 * Idempotent: `neutralizeReminderText(neutralizeReminderText(s)) === neutralizeReminderText(s)`.
 */
export function neutralizeReminderText(text: string): string {
  const clean = text.replace(/\r\n?/g, '\n').replace(CONTROL, '');
  return clean.replace(LESS_THAN, (char, offset: number) => (startsReminderTag(clean, offset) ? '&lt;' : char));
}

/** Wrap already-neutralised text in the reminder envelope. */
export function wrapInSystemReminder(text: string): string {
  return `${SYSTEM_REMINDER_OPEN}\n${text}\n${SYSTEM_REMINDER_CLOSE}`;
}
