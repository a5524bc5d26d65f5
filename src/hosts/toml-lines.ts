/**
 * Line edits of a TOML file, decided by a parser: the edit is made on the lines (the user's
 * bytes stay), and the result, parsed again, must equal the original plus exactly our change,
 * or nothing is written.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'smol-toml';
import { SkillSearchError, errorMessage } from '../errors.js';
import { isRecord } from '../util/json-file.js';
import { eolOf, firstLine } from '../util/text.js';

export type TomlTable = Record<string, unknown>;

export function parseToml(text: string, file: string): TomlTable {
  try {
    return parse(text) as TomlTable;
  } catch (error) {
    throw new SkillSearchError('BAD_FILE', `${file}: not valid TOML (${firstLine(errorMessage(error)).trim()}); fix it or move it away, nothing was changed`, {
      cause: error,
    });
  }
}

/** A TOML file as a table, or undefined when missing or broken (Codex itself says what is wrong with it). */
export function readTomlQuietly(file: string): TomlTable | undefined {
  try {
    return parseToml(readFileSync(file, 'utf8'), file);
  } catch {
    return undefined;
  }
}

/** A TOML basic string (JSON's escapes are a subset TOML accepts). */
export function tomlString(value: string): string {
  return JSON.stringify(value);
}

/** A dotted key, each part bare when it can be. */
export function tomlKey(path: readonly string[]): string {
  return path.map((part) => (/^[A-Za-z0-9_-]+$/.test(part) ? part : tomlString(part))).join('.');
}

/** One `[table]` header's lines: `start` is the header's index, `end` the next header's (or the line count). */
type TomlSection = { readonly start: number; readonly end: number };

/** Whether a header line names the table `path` (`[a."b.c"]` is `['a', 'b.c']`; `[[a]]`, an array of tables, is not `['a']`): parsed alone, it is that table. */
function isHeaderOf(line: string, path: readonly string[]): boolean {
  try {
    return JSON.stringify(parse(`${line}\n`)) === JSON.stringify(withValue({}, path, {}));
  } catch {
    return false;
  }
}

/** Whether line `i` of valid TOML starts at top level, not inside a multi-line string or array: then, and only then, the lines before it parse. */
function atTopLevel(lines: readonly string[], i: number): boolean {
  try {
    parse(`${lines.slice(0, i).join('\n')}\n`);
    return true;
  } catch {
    return false;
  }
}

/** The section `path` (a table, not an array of tables), its header found on a line at top level. */
function findSection(lines: readonly string[], path: readonly string[]): TomlSection | undefined {
  // At top level, a line starting with `[` is a header.
  const header = (line: string, i: number) => /^\s*\[/.test(line) && atTopLevel(lines, i);
  const start = lines.findIndex((line, i) => /^\s*\[/.test(line) && isHeaderOf(line, path) && atTopLevel(lines, i));
  if (start < 0) return undefined;
  let end = start + 1;
  while (end < lines.length && !header(lines[end]!, end)) end++;
  return { start, end };
}

/** `text` with `block` (lines ending in a newline) appended after a blank line, which {@link withoutSection} takes away with it. */
function appendBlock(text: string, block: string): string {
  if (text === '') return block;
  const eol = eolOf(text);
  return `${text}${text.endsWith('\n') ? eol : eol + eol}${block.replaceAll('\n', eol)}`;
}

/** Keys sorted at every level, so two parses compare by content; empty tables left out (a header with nothing under it means nothing). */
function canonical(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as TomlTable)[key])] as const)
      .filter(([, child]) => !(isRecord(child) && Object.keys(child).length === 0));
    return Object.fromEntries(entries);
  }
  return value;
}

/** `after` when it parses to exactly `expected` (the original with our change), else a one-line refusal naming the file and what to do by hand. */
function checkedEdit(after: string, expected: TomlTable, file: string, byHand: string): string {
  let same = false;
  try {
    same = JSON.stringify(canonical(parse(after))) === JSON.stringify(canonical(expected));
  } catch {
    // Not TOML: refused below.
  }
  if (!same) throw new SkillSearchError('BAD_FILE', `${file}: cannot be edited safely here; ${byHand}; nothing was changed`);
  return after;
}

/** A copy of `table` with `value` set at `path` (undefined deletes it); only the tables on the path are copied. */
function withValue(table: TomlTable, path: readonly string[], value: unknown): TomlTable {
  const [head, ...rest] = path;
  if (head === undefined) return table;
  const copy: TomlTable = { ...table };
  if (rest.length === 0) {
    if (value === undefined) delete copy[head];
    else copy[head] = value;
    return copy;
  }
  const child = copy[head];
  copy[head] = withValue(isRecord(child) ? child : {}, rest, value);
  return copy;
}

export function valueAt(table: TomlTable, path: readonly string[]): unknown {
  let value: unknown = table;
  for (const part of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as TomlTable)[part];
  }
  return value;
}

/** `lines` without `section` and the blank line before it (else those after it): removing what {@link appendBlock} added gives the bytes from before. */
function withoutSection(lines: readonly string[], section: TomlSection): string {
  // The section's end without the blank lines before the next header.
  let end = section.end;
  while (end > section.start + 1 && lines[end - 1]!.trim() === '') end--;
  let start = section.start;
  if (start > 0 && lines[start - 1]!.trim() === '') start--;
  else if (section.end < lines.length) end = section.end;
  return [...lines.slice(0, start), ...lines.slice(end)].join('\n');
}

/** A value as TOML on one line: a string, or an array of strings. */
function tomlValue(value: string | readonly string[]): string {
  return typeof value === 'string' ? tomlString(value) : `[${value.map(tomlString).join(', ')}]`;
}

export type TableKeys = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * `text` with the keys of the table `path` set to `values` (undefined removes one), each on a line of its own: a
 * missing table is appended after a blank line and one left empty goes with the blank line before it; a key already
 * there is rewritten on its line, so every other line stays as the user wrote it. The same string when nothing
 * changes; the result must parse to the original plus exactly this change, else a one-line refusal says `byHand`.
 */
export function withTableKeys(text: string, path: readonly string[], values: TableKeys, file: string, byHand: string): string {
  const parsed = parseToml(text, file);
  const current = valueAt(parsed, path);
  const table: TomlTable = { ...(isRecord(current) ? current : {}) };
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) delete table[key];
    else table[key] = value;
  }
  const empty = Object.keys(table).length === 0;
  const expected = withValue(parsed, path, empty ? undefined : table);
  if (JSON.stringify(canonical(expected)) === JSON.stringify(canonical(parsed))) return text;
  const cr = eolOf(text) === '\r\n' ? '\r' : '';
  const keyLines = Object.entries(values).map(([key, value]) => [key, value === undefined ? undefined : `${tomlKey([key])} = ${tomlValue(value)}`] as const);
  if (current === undefined) {
    const block = [`[${tomlKey(path)}]`, ...keyLines.flatMap(([, line]) => (line === undefined ? [] : [line])), ''].join('\n');
    return checkedEdit(appendBlock(text, block), expected, file, byHand);
  }
  const lines = text.split('\n');
  const section = findSection(lines, path);
  if (section === undefined) {
    // Only a table of its own is edited here; one that is not has nothing of ours to remove.
    if (Object.values(values).every((value) => value === undefined)) return text;
    throw new SkillSearchError('BAD_FILE', `${file}: [${tomlKey(path)}] is not a table of its own; ${byHand}; nothing was changed`);
  }
  if (empty) return checkedEdit(withoutSection(lines, section), expected, file, byHand);
  const edited: (string | undefined)[] = [...lines];
  const added: string[] = [];
  for (const [key, line] of keyLines) {
    // The key's line at top level of the section (not one inside a multi-line string), and those its value runs on to.
    const pattern = new RegExp(`^\\s*(?:${key}|"${key}"|'${key}')\\s*=`);
    const at = lines.findIndex((text, i) => i > section.start && i < section.end && pattern.test(text) && atTopLevel(lines, i));
    if (at < 0) {
      if (line !== undefined) added.push(line + cr);
      continue;
    }
    let end = at + 1;
    while (end < section.end && !atTopLevel(lines, end)) end++;
    edited.fill(undefined, at, end);
    if (line !== undefined) edited[at] = line + cr;
  }
  const next = [...edited.slice(0, section.start + 1), ...added, ...edited.slice(section.start + 1)];
  return checkedEdit(next.filter((line) => line !== undefined).join('\n'), expected, file, byHand);
}
