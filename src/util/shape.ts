/**
 * Shape checks for the user's config file without zod (which costs a cold hook ~60 ms): the first
 * problem in traversal order, worded as zod words it. Checks never change the value.
 */

/** One problem: where (keys from the root) and what. */
export interface ShapeIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** Checks `value` found at `path`; undefined when it has the shape, then of type `T`. */
export type Check<T = unknown> = ((value: unknown, path: readonly PropertyKey[]) => ShapeIssue | undefined) & { readonly type?: T };

/** The type of a value `C` passes (as zod's `z.infer`). */
export type Infer<C> = C extends Check<infer T> ? T : never;

/** The first problem of `value` against `check`, undefined when there is none. */
export function shapeIssue(check: Check, value: unknown): ShapeIssue | undefined {
  return check(value, []);
}

/** What a value is, in words: `null`, `array`, `Infinity`, `NaN`, a class name, or its `typeof`. */
function typeName(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? 'number' : String(value);
  if (typeof value !== 'object') return typeof value;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const prototype = Object.getPrototypeOf(value) as unknown;
  const className = (value as { constructor?: { name?: string } }).constructor?.name;
  return prototype !== Object.prototype && prototype !== null && className ? className : 'object';
}

function wrongType(expected: string, value: unknown, path: readonly PropertyKey[]): ShapeIssue {
  return { path, message: `Invalid input: expected ${expected}, received ${typeName(value)}` };
}

/** `nonEmpty`: at least one character, with this message (zod's own when `true`); `maxLength`: at most this many characters. */
export function string(rules: { readonly nonEmpty?: true | string; readonly maxLength?: number } = {}): Check<string> {
  return (value, path) => {
    if (typeof value !== 'string') return wrongType('string', value, path);
    if (rules.nonEmpty !== undefined && value.length === 0) {
      return { path, message: rules.nonEmpty === true ? 'Too small: expected string to have >=1 characters' : rules.nonEmpty };
    }
    if (rules.maxLength !== undefined && value.length > rules.maxLength) {
      return { path, message: `Too big: expected string to have <=${rules.maxLength} characters, got ${value.length}` };
    }
    return undefined;
  };
}

export const boolean: Check<boolean> = (value, path) => (typeof value === 'boolean' ? undefined : wrongType('boolean', value, path));

export function oneOf<T extends string>(values: readonly T[]): Check<T> {
  const message =
    values.length === 1
      ? `Invalid input: expected ${JSON.stringify(values[0])}`
      : `Invalid option: expected one of ${values.map((v) => JSON.stringify(v)).join('|')}`;
  return (value, path) => (values.includes(value as T) ? undefined : { path, message });
}

/** `check`, or absent (undefined). */
export function optional<T>(check: Check<T>): Check<T | undefined> {
  return (value, path) => (value === undefined ? undefined : check(value, path));
}

export function array<T>(item: Check<T>): Check<T[]> {
  return (value, path) => {
    if (!Array.isArray(value)) return wrongType('array', value, path);
    for (let i = 0; i < value.length; i++) {
      const problem = item(value[i], [...path, i]);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
}

/** An object with these keys and no others (`unknown key`); a missing key is checked as undefined: wrap it in `optional`. */
export function object<S extends Readonly<Record<string, Check>>>(shape: S): Check<{ [K in keyof S]: Infer<S[K]> }> {
  const keys = Object.keys(shape);
  return (value, path) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return wrongType('object', value, path);
    const fields = value as Record<string, unknown>;
    for (const key of keys) {
      const problem = shape[key]!(fields[key], [...path, key]);
      if (problem !== undefined) return problem;
    }
    const unknownKey = Object.keys(fields).find((key) => !Object.hasOwn(shape, key));
    return unknownKey === undefined ? undefined : { path: [...path, unknownKey], message: 'unknown key' };
  };
}
