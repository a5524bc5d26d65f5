/** `value` without its `undefined` fields, so `{ ...defaults, ...definedOnly(options) }` keeps defaults. */
export function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}
