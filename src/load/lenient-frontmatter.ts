/**
 * Frontmatter that is not valid YAML (usually an unquoted `: ` in a value: `description: Fill PDF forms: text`) read line by line: the
 * known text fields as `key: value` lines. A value starting with a YAML indicator is left out; quoted values are unquoted; `|`, `>` read.
 */

/** The fields recovered; anything else (hooks, unknown keys) needs real YAML. */
const LENIENT_FIELDS = new Set(['name', 'description', 'whenToUse', 'when_to_use', 'effort', 'disable-model-invocation', 'user-invocable']);
const ENTRY = /^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]+(.*))?$/;
const BLOCK = /^([|>])[+-]?[1-9]?[ \t]*$/;
const INDICATOR = /^[[{&*!%@`]/;

export interface LenientFrontmatter {
  /** Recovered fields, raw text (validated by `validateFields` like parsed YAML). */
  readonly fields: Record<string, string>;
  /** The body after the closing `---` line, as gray-matter would return it. */
  readonly body: string;
  /** File line numbers (1-based) of plain values holding `: `, what YAML refuses. */
  readonly unquotedColonLines: readonly number[];
}

/** `input` starts with a `---` line and has a closing `\n---` (the caller checks); the first value of a repeated key wins. */
export function readFrontmatterLines(input: string): LenientFrontmatter {
  const open = input.indexOf('\n');
  const close = input.indexOf('\n---', open);
  const block = close < 0 ? '' : input.slice(open + 1, close);
  let body = close < 0 ? '' : input.slice(close + 4);
  // The rest of the closing line (usually nothing) and its line break are not body.
  const lineEnd = body.indexOf('\n');
  body = lineEnd < 0 ? '' : body.slice(lineEnd + 1);

  const lines = block.split('\n').map((line) => line.replace(/\r$/, ''));
  const fields: Record<string, string> = {};
  const unquotedColonLines: number[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const match = ENTRY.exec(lines[i]!);
    if (match === null) continue;
    const key = match[1]!;
    const first = (match[2] ?? '').trim();
    // Line 1 of the file is the opening `---`.
    if (/:[ \t]/.test(first) && !/^["'|>]/.test(first)) unquotedColonLines.push(i + 2);
    // Following lines indented deeper belong to this value (a folded plain scalar or a block).
    const continuation: string[] = [];
    while (i + 1 < lines.length && (/^[ \t]+\S/.test(lines[i + 1]!) || (lines[i + 1]!.trim() === '' && i + 2 < lines.length && /^[ \t]/.test(lines[i + 2]!)))) {
      continuation.push(lines[i + 1]!);
      i += 1;
    }
    if (!LENIENT_FIELDS.has(key) || key in fields) continue;
    const value = recoverValue(first, continuation);
    if (value !== undefined) fields[key] = value;
  }
  return { fields, body, unquotedColonLines };
}

function recoverValue(first: string, continuation: readonly string[]): string | undefined {
  const block = BLOCK.exec(first);
  if (block !== null) {
    const indent = Math.min(...continuation.filter((line) => line.trim() !== '').map((line) => /^[ \t]*/.exec(line)![0].length));
    const text = continuation.map((line) => line.slice(Math.min(indent, line.length)));
    return block[1] === '|' ? text.join('\n') : text.map((line) => line.trim()).join(' ');
  }
  if (INDICATOR.test(first)) return undefined;
  const quoted = unquote(first);
  if (quoted !== undefined) return continuation.length === 0 ? quoted : undefined;
  return [first, ...continuation.map((line) => line.trim())].filter((part) => part !== '').join(' ');
}

function unquote(value: string): string | undefined {
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1).replaceAll("''", "'");
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    try {
      return JSON.parse(value) as string;
    } catch {
      return value.slice(1, -1);
    }
  }
  return undefined;
}
