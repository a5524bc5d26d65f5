import type { HitExplanation } from '../types.js';

/** Every number in `value` (an explanation, at any depth) rounded to 4 decimals. */
function rounded(value: unknown): unknown {
  if (typeof value === 'number') return Math.round(value * 10_000) / 10_000;
  if (Array.isArray(value)) return value.map(rounded);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, rounded(field)]));
  return value;
}

/** An explanation with every number rounded to 4 decimals, for JSON a person or a model reads. */
export function roundExplanation(why: HitExplanation): HitExplanation {
  return rounded(why) as HitExplanation;
}
