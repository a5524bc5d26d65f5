/** The first line of `text`: an error message's headline, for a one-line report. */
export function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}

/** The line ending `text` uses (`\r\n` when it has any), kept in what is added to it. */
export function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/** Cuts `text` to `max` characters without splitting a surrogate pair. */
export function capChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** Cut to `max` characters, the last one being `…`; never splits a surrogate pair. */
export function truncateWithEllipsis(text: string, max: number): string {
  return text.length <= max ? text : `${capChars(text, max - 1)}…`;
}

/** `1 skill`, `2 skills`: `count` with `word`, plural by an `s` unless it is one. */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
