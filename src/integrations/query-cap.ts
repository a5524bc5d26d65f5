/**
 * The part of a message worth searching. A pasted log or file makes a prompt megabytes long,
 * and tokenizing, embedding and scoring all of it costs seconds and gigabytes; what the user
 * asks for sits at its start or its end. Every entry point that takes a query from outside
 * (hook, socket server, MCP) cuts it here, so each answers the same capped query.
 */
import { capChars } from '../util/text.js';

/**
 * Longest query searched, in UTF-16 code units. Small enough that its JSON, escaped at worst
 * six characters per unit, fits one 64 KiB socket request line.
 */
export const MAX_QUERY_CHARS = 8 * 1024;
/** Of a capped query, the share kept from the start; the rest comes from the end. */
const HEAD_SHARE = 0.75;

/**
 * `text` itself when it fits `maxChars`; otherwise its first three quarters and last quarter
 * of `maxChars`, joined by a line break (never splitting a surrogate pair). O(maxChars).
 */
export function capQuery(text: string, maxChars: number = MAX_QUERY_CHARS): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor((maxChars - 1) * HEAD_SHARE);
  let tail = text.length - (maxChars - 1 - head);
  // A tail starting on the low half of a surrogate pair starts after it.
  const first = text.charCodeAt(tail);
  if (first >= 0xdc00 && first <= 0xdfff) tail += 1;
  return `${capChars(text, head)}\n${text.slice(tail)}`;
}
