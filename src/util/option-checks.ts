import { badOption } from '../errors.js';

/** `value` when it is a positive safe integer; else the `BAD_OPTION` error naming `key`. */
export function positiveInteger(key: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) throw badOption(key, 'be a positive integer', value);
  return value;
}
