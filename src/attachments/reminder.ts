/**
 * The `<system-reminder>` envelope and the one sanitiser every piece of skill text passes
 * through before it is placed inside it.
 */

export const SYSTEM_REMINDER_OPEN = '<system-reminder>';
export const SYSTEM_REMINDER_CLOSE = '</system-reminder>';

// Zero-width and bidi-control characters can hide a tag from a naive filter while the
// model still reads it as one; they carry no meaning in a skill description, so they go.
const INVISIBLE = /[\u200B\u2060\uFEFF\u202A-\u202E\u2066-\u2069]/g;
// C0 controls except \t (\u0009) and \n (\u000A), DEL, and C1 controls.
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;
// Any opening or closing reminder tag, in any case, with whitespace, `_` or joiners between
// its parts, closed or not. Only the `<` is replaced, so the text stays readable.
const REMINDER_TAG = /<(?=[\s\u200C\u200D]*\/?[\s\u200C\u200D]*system[\s\u200C\u200D]*[-_]?[\s\u200C\u200D]*reminder)/giu;

/**
 * Make untrusted skill text safe to place inside a `<system-reminder>`: line endings become
 * `\n`, control and invisible characters are removed (`\n` and `\t` are kept), and every
 * `<` that starts a `system-reminder` tag becomes `&lt;` so the text can neither close the
 * reminder early nor open a fake one.
 *
 * Idempotent: `neutralizeReminderText(neutralizeReminderText(s)) === neutralizeReminderText(s)`.
 */
export function neutralizeReminderText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(CONTROL, '')
    .replace(INVISIBLE, '')
    .replace(REMINDER_TAG, '&lt;');
}

/** Wrap already-neutralised text in the reminder envelope. */
export function wrapInSystemReminder(text: string): string {
  return `${SYSTEM_REMINDER_OPEN}\n${text}\n${SYSTEM_REMINDER_CLOSE}`;
}
