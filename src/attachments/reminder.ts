/** The `<system-reminder>` envelope, and the sanitiser every piece of skill text passes through before it goes inside. */

// C0 controls except \t (\u0009) and \n (\u000A), DEL, and C1 controls: not text in a skill.
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;
// What a reader of tags looks through: code points without a glyph of their own (default-ignorables,
// format characters, combining marks, spaces and line breaks, the blank braille pattern U+2800).
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

/** The index after `word` read from `from` as a reader sees it (NFKC-folded, lower-cased, invisibles skipped: `ＳＹＳＴＥＭ`, `ﬆ` count), or -1. */
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
 * Untrusted skill text made safe inside a `<system-reminder>`: `\n` line endings, no control
 * characters but `\n` and `\t`, and every `<` a reader would take for a `system-reminder` tag's
 * start (look-alikes and invisibles included) as `&lt;`. Nothing else is rewritten. Idempotent.
 */
export function neutralizeReminderText(text: string): string {
  const clean = text.replace(/\r\n?/g, '\n').replace(CONTROL, '');
  return clean.replace(LESS_THAN, (char, offset: number) => (startsReminderTag(clean, offset) ? '&lt;' : char));
}

/** Already-neutralised text in the reminder envelope. */
export function wrapInSystemReminder(text: string): string {
  return `<system-reminder>\n${text}\n</system-reminder>`;
}
