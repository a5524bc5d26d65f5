/**
 * `value` without its `undefined` fields, so that `{ ...defaults, ...definedOnly(options) }`
 * keeps a default where the caller passed `{ field: undefined }`.
 */
export function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}
