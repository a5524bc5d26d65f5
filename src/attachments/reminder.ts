/**
 * The `<system-reminder>` envelope and the one sanitiser every piece of skill text passes
 * through before it is placed inside it.
 */

export const SYSTEM_REMINDER_OPEN = '<system-reminder>';
export const SYSTEM_REMINDER_CLOSE = '</system-reminder>';

// Format characters (zero-width, soft hyphen, bidi controls, joiners: Unicode category Cf)
// can hide a tag from a filter while the model still reads it as one; they carry no
// meaning in a skill description, so they go.
const INVISIBLE = /\p{Cf}/gu;
// C0 controls except \t (\u0009) and \n (\u000A), DEL, and C1 controls.
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;
// Any opening or closing reminder tag, in any case, with whitespace, `_` or joiners between
// its parts, closed or not. Only the `<` is replaced, so the text stays readable.
const REMINDER_TAG = /<(?=[\s\u200C\u200D]*\/?[\s\u200C\u200D]*system[\s\u200C\u200D]*[-_]?[\s\u200C\u200D]*reminder)/giu;

/**
 * Make untrusted skill text safe to place inside a `<system-reminder>`: compatibility forms
 * are folded (NFKC: a full-width `＜` is a `<`), line endings become `\n`, control and
 * invisible characters are removed (`\n` and `\t` are kept), and every `<` that starts a
 * `system-reminder` tag becomes `&lt;` so the text can neither close the reminder early nor
 * open a fake one.
 *
 * Idempotent: `neutralizeReminderText(neutralizeReminderText(s)) === neutralizeReminderText(s)`.
 */
export function neutralizeReminderText(text: string): string {
  return text.normalize('NFKC').replace(/\r\n?/g, '\n').replace(CONTROL, '').replace(INVISIBLE, '').replace(REMINDER_TAG, '&lt;');
}

/** Wrap already-neutralised text in the reminder envelope. */
export function wrapInSystemReminder(text: string): string {
  return `${SYSTEM_REMINDER_OPEN}\n${text}\n${SYSTEM_REMINDER_CLOSE}`;
}
