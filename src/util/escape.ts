/**
 * The escaping of text printed on one line to a model or a terminal: C0/C1 controls, DEL and the
 * Unicode line and paragraph separators become `\uXXXX`, so a name cannot add a line or drive the terminal.
 */
const LINE_BREAKING_OR_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/gu;

export function escapeForTerminal(text: string): string {
  return text.replace(LINE_BREAKING_OR_CONTROL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
