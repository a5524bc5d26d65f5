import { badOption, SkillSearchError } from '../errors.js';
import { definedOnly } from './defined.js';
import { suggestNames } from './suggest.js';

/** `value` when it is a positive safe integer; else the `BAD_OPTION` error naming `key`. */
export function positiveInteger(key: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) throw badOption(key, 'be a positive integer', value);
  return value;
}

/** The `BAD_OPTION` error for a retrieval knob (`EngineOptions`, the layers' own), its value as JSON: the checks below use it, so one line says what to fix. */
export function badKnob(name: string, expected: string, value: unknown): SkillSearchError {
  // JSON writes NaN and Infinity as `null`.
  const shown = typeof value === 'number' && !Number.isFinite(value) ? String(value) : (JSON.stringify(value) ?? String(value));
  return badOption(name, `be ${expected}`, shown);
}

export function assertPositiveInteger(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw badKnob(name, 'a positive integer', value);
  return value;
}

export function assertNonNegativeInteger(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw badKnob(name, 'a non-negative integer', value);
  return value;
}

export function assertFinite(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) throw badKnob(name, `a number from ${min} to ${max}`, value);
  return value;
}

export function assertString(name: string, value: unknown): string {
  if (typeof value !== 'string') throw badKnob(name, 'a string', value);
  return value;
}

/**
 * Refuses a key `owner` has no option for (a misspelling from plain JavaScript, which would otherwise be ignored), naming it, the nearest and every known key.
 * `path` is where a nested options object sits (`watch`), so the key is named in full (`watch.debouceMs`).
 */
export function assertKnownKeys(owner: string, options: object, known: readonly string[], path?: string): void {
  const unknown = Object.keys(options).find((key) => !known.includes(key));
  if (unknown === undefined) return;
  const full = (key: string): string => (path === undefined ? key : `${path}.${key}`);
  const [near] = suggestNames(unknown, known);
  const hint = near === undefined ? '' : ` (did you mean \`${full(near)}\`?)`;
  const where = path === undefined ? '' : ` under \`${path}\``;
  throw new SkillSearchError('BAD_OPTION', `Expected an option of ${owner}, got \`${full(unknown)}\`${hint}; its options${where}: ${known.join(', ')}`);
}

export function assertBoolean(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw badKnob(name, 'true or false', value);
  return value;
}

/** A group of `SkillSearchEngine` knobs: the fields given override the defaults one by one; an unknown field is refused by its full name (`hnsw.ef`). */
export function nestedKnobs<T extends object>(name: string, defaults: T, value: unknown): Record<keyof T, unknown> {
  if (value === defaults) return defaults as Record<keyof T, unknown>;
  const fields = Object.keys(defaults);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badKnob(name, `an object with fields among ${fields.join(', ')}`, value);
  assertKnownKeys('SkillSearchEngine', value, fields, name);
  return { ...defaults, ...definedOnly(value) } as Record<keyof T, unknown>;
}
