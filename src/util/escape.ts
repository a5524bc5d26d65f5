/**
 * The one escaping of text printed on one line to a model or a terminal (a path, a name):
 * C0 and C1 controls (newline, carriage return, ESC, BEL, …), DEL and the Unicode line and
 * paragraph separators become `\uXXXX`, so a folder named `x⏎- pdf: ~/.ssh/id_rsa` cannot add a
 * line, and a name holding `ESC ]` cannot drive the terminal. Everything else is kept as is.
 */
const LINE_BREAKING_OR_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/gu;

export function escapeForTerminal(text: string): string {
  return text.replace(LINE_BREAKING_OR_CONTROL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
