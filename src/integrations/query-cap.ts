/**
 * The part of a message worth searching: a pasted log makes a prompt megabytes long, and what
 * the user asks sits at its start or end. Every entry point (hook, socket, MCP) cuts it here.
 */
import { capChars } from '../util/text.js';

/** Longest query searched, in UTF-16 code units: its JSON (at worst six characters a unit) fits a 64 KiB socket line. */
export const MAX_QUERY_CHARS = 8 * 1024;
/** Of a capped query, the share kept from the start; the rest comes from the end. */
const HEAD_SHARE = 0.75;

/** `text`, or when longer than `maxChars` its first three quarters and last quarter of that, joined by a line break (no surrogate pair split). */
export function capQuery(text: string, maxChars: number = MAX_QUERY_CHARS): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor((maxChars - 1) * HEAD_SHARE);
  let tail = text.length - (maxChars - 1 - head);
  // A tail starting on the low half of a surrogate pair starts after it.
  const first = text.charCodeAt(tail);
  if (first >= 0xdc00 && first <= 0xdfff) tail += 1;
  return `${capChars(text, head)}\n${text.slice(tail)}`;
}
