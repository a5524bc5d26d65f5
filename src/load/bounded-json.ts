/** JSON of a parsed YAML value, under a budget: aliases let 500 bytes stand for 10⁹ nodes, so the walk stops past `maxChars` or `maxDepth`. */

export type BoundedJson = { readonly ok: true; readonly json: string } | { readonly ok: false; readonly problem: 'too-large' | 'too-deep' };

export interface BoundedJsonLimits {
  /** Longest JSON text accepted, in UTF-16 code units. */
  readonly maxChars: number;
  /** Deepest nesting of lists and mappings accepted. */
  readonly maxDepth: number;
}

class Overrun extends Error {
  constructor(readonly problem: 'too-large' | 'too-deep') {
    super(problem);
  }
}

/** Same text as `JSON.stringify(value)` for the values YAML yields, or why there is none. */
export function boundedJson(value: unknown, limits: BoundedJsonLimits): BoundedJson {
  const parts: string[] = [];
  let length = 0;
  const emit = (text: string) => {
    length += text.length;
    if (length > limits.maxChars) throw new Overrun('too-large');
    parts.push(text);
  };

  const write = (item: unknown, depth: number): boolean => {
    if (item !== null && typeof item === 'object' && typeof (item as { toJSON?: unknown }).toJSON === 'function') {
      item = (item as { toJSON: () => unknown }).toJSON();
    }
    if (item === null) emit('null');
    else if (typeof item === 'string') emit(JSON.stringify(item));
    else if (typeof item === 'number') emit(Number.isFinite(item) ? String(item) : 'null');
    else if (typeof item === 'boolean') emit(item ? 'true' : 'false');
    else if (typeof item !== 'object') return false;
    else {
      if (depth >= limits.maxDepth) throw new Overrun('too-deep');
      if (Array.isArray(item)) {
        emit('[');
        item.forEach((element, index) => {
          if (index > 0) emit(',');
          if (!write(element, depth + 1)) emit('null');
        });
        emit(']');
      } else {
        emit('{');
        let first = true;
        for (const [key, element] of Object.entries(item)) {
          const mark = parts.length;
          const before = length;
          if (!first) emit(',');
          emit(`${JSON.stringify(key)}:`);
          if (write(element, depth + 1)) first = false;
          else {
            // Undefined and functions are left out of a mapping, as JSON.stringify does.
            parts.length = mark;
            length = before;
          }
        }
        emit('}');
      }
    }
    return true;
  };

  try {
    return write(value, 0) ? { ok: true, json: parts.join('') } : { ok: false, problem: 'too-large' };
  } catch (error) {
    if (error instanceof Overrun) return { ok: false, problem: error.problem };
    throw error;
  }
}
