/** The first line of `text`: an error message's headline, for a one-line report. */
export function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}

/** The line ending `text` uses (`\r\n` when it has any), kept in what is added to it. */
export function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}
