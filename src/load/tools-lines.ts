import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic, Skill } from '../types.js';
import { shortHash } from '../util/hash.js';
import { mkdirPrivate, PRIVATE_FILE_MODE } from '../vector-index/atomic-file.js';
import { diagnostic } from './skill.js';
import type { ToolsFileStat, ToolsSnapshotKey } from './tools-snapshot.js';

/**
 * A tools file's *line table*: its text as it was last loaded, with what each line gave (the
 * skill's id, or none, and the line's problems), kept under the tools snapshot folder. When the
 * file changes, a cold process compares the new text with it line by line (`diffToolsLines`) and
 * parses only the lines it does not hold, so one edited description in a 24k-line registry
 * costs one line's parse rather than 24k (docs/store.md, "A changed tools file").
 *
 * The file is a 32-bit little-endian header length, a JSON header (format, path, the stat the
 * text was read under, the lines' outcomes) and the text. It is only a cache: an unreadable or
 * foreign table is ignored, and a torn text costs time only (a line that differs from the file
 * is parsed again).
 */
const LINES_FORMAT = 1;

/** A problem of a line without its location (`[code, message, severity]`): the line moves, its number with it. */
export type LineProblem = readonly [Diagnostic['code'], string, Diagnostic['severity']];

/** What one line of a tools file gave. */
export interface LineOutcome {
  /** The id of the skill the line made; null for a blank line or one that made none. */
  readonly id: string | null;
  readonly problems: readonly LineProblem[];
}

export interface ToolsLineTable {
  /** The file's stat taken before its text was read. */
  readonly stat: ToolsFileStat;
  readonly text: Buffer;
  /** One per line of `text` split at `\n`. */
  readonly lines: readonly LineOutcome[];
}

/** A line table as read, with where each of its lines starts ({@link lineStarts}). */
export interface ReadLineTable extends ToolsLineTable {
  readonly starts: readonly number[];
}

/** A blank line's outcome (also a line that made nothing and said nothing). */
export const BLANK_LINE: LineOutcome = Object.freeze({ id: null, problems: Object.freeze([]) });

/** One line's outcome from its skill (or none) and its diagnostics. */
export function lineOutcome(skill: Skill | undefined, diagnostics: readonly Diagnostic[]): LineOutcome {
  if (skill === undefined && diagnostics.length === 0) return BLANK_LINE;
  return { id: skill?.id ?? null, problems: diagnostics.map((d) => [d.code, d.message, d.severity] as const) };
}

/** The diagnostics of line `index` (0-based) of `path`, from its outcome. */
export function lineDiagnostics(path: string, index: number, outcome: LineOutcome): Diagnostic[] {
  return outcome.problems.map(([code, message, severity]) => diagnostic(code, `${path}:${index + 1}`, message, severity));
}

function tableFile(dir: string, key: ToolsSnapshotKey): string {
  return join(dir, `lines-${shortHash(JSON.stringify([LINES_FORMAT, key.path, key.source, key.rank, key.limits]))}.bin`);
}

/** The line table of `key.path`, or undefined (none, another format, another file, unreadable). */
export function readToolsLines(dir: string, key: ToolsSnapshotKey): ReadLineTable | undefined {
  try {
    const data = readFileSync(tableFile(dir, key));
    const headerBytes = data.readUInt32LE(0);
    if (4 + headerBytes > data.length) return undefined;
    const header = JSON.parse(data.subarray(4, 4 + headerBytes).toString('utf8')) as {
      format?: unknown;
      path?: unknown;
      stat?: ToolsFileStat;
      ids?: unknown;
      problems?: unknown;
    } | null;
    if (header?.format !== LINES_FORMAT || header.path !== key.path || typeof header.stat !== 'object' || header.stat === null) return undefined;
    const { ids, problems } = header;
    if (!Array.isArray(ids) || typeof problems !== 'object' || problems === null) return undefined;
    const text = data.subarray(4 + headerBytes);
    const problemsAt = problems as Record<string, LineProblem[]>;
    const lines = ids.map((id: unknown, index): LineOutcome => {
      const said = problemsAt[index];
      if (id === null && said === undefined) return BLANK_LINE;
      return { id: typeof id === 'string' ? id : null, problems: Array.isArray(said) ? said : [] };
    });
    const starts = lineStarts(text);
    if (lines.length !== starts.length - 1) return undefined;
    return { stat: header.stat, text, lines, starts };
  } catch {
    return undefined;
  }
}

/** Keeps `table` for the next process; silent on failure (it is only a cache). Not fsync'ed: a torn table costs time, never an answer. */
export function writeToolsLines(dir: string, key: ToolsSnapshotKey, table: ToolsLineTable): void {
  const file = tableFile(dir, key);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    mkdirPrivate(dir);
    const problems: Record<number, readonly LineProblem[]> = {};
    table.lines.forEach((line, index) => {
      if (line.problems.length > 0) problems[index] = line.problems;
    });
    const header = Buffer.from(JSON.stringify({ format: LINES_FORMAT, path: key.path, stat: table.stat, ids: table.lines.map((line) => line.id), problems }));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(header.length, 0);
    writeFileSync(temp, Buffer.concat([length, header, table.text]), { mode: PRIVATE_FILE_MODE });
    renameSync(temp, file);
  } catch {
    try {
      rmSync(temp, { force: true });
    } catch {
      // The folder is unusable: there is no temp file to remove.
    }
  }
}

/** Where each line of `text` starts; one more entry, the end of the text plus one, closes the last. */
export function lineStarts(text: Buffer): number[] {
  const starts = [0];
  for (let at = text.indexOf(10); at !== -1; at = text.indexOf(10, at + 1)) starts.push(at + 1);
  starts.push(text.length + 1);
  return starts;
}

/** A new line's outcome in {@link diffToolsLines}: found among the old lines, or parsed now. */
export interface DiffedLine {
  readonly outcome: LineOutcome;
  /** The old line with the same text, when there was one (its skill is the one the old load made). */
  readonly old?: number;
  /** The skill the line made, when it was parsed now. */
  readonly skill?: Skill;
}

/**
 * The new text's lines, each with the outcome of the old line of the same text when there is
 * one, else with `parse(line text, index)`'s. Between the lines both texts start and end with, a
 * line is first compared with the old line at its place counted from the start and from the end
 * (one buffer comparison each: an edit keeps both, an insert or a removal one of them); only the
 * lines neither holds are decoded, and matched by their text against the old lines left over,
 * each old line at most once, so a line that moved is found wherever it went. O(lines).
 */
export function diffToolsLines(
  old: ReadLineTable,
  text: Buffer,
  parse: (line: string, index: number) => { readonly skill: Skill | undefined; readonly diagnostics: readonly Diagnostic[] },
): DiffedLine[] {
  const a = old.starts;
  const b = lineStarts(text);
  const oldCount = a.length - 1;
  const newCount = b.length - 1;
  const same = (i: number, j: number): boolean => text.compare(old.text, a[i]!, a[i + 1]! - 1, b[j]!, b[j + 1]! - 1) === 0;
  let head = 0;
  while (head < oldCount && head < newCount && same(head, head)) head += 1;
  let tail = 0;
  while (tail < oldCount - head && tail < newCount - head && same(oldCount - 1 - tail, newCount - 1 - tail)) tail += 1;
  const oldEnd = oldCount - tail;
  const newEnd = newCount - tail;
  const used = new Uint8Array(oldCount);
  /** Each new line of the middle: the old line it matched in place, or -1. */
  const placed = new Int32Array(newEnd - head).fill(-1);
  const free = (i: number, j: number): boolean => i >= head && i < oldEnd && used[i] === 0 && same(i, j);
  for (let j = head; j < newEnd; j += 1) {
    const fromTail = j + oldCount - newCount;
    const i = free(j, j) ? j : free(fromTail, j) ? fromTail : -1;
    if (i < 0) continue;
    used[i] = 1;
    placed[j - head] = i;
  }
  const unmatched = new Map<string, number[]>();
  for (let i = oldEnd - 1; i >= head; i -= 1) {
    if (used[i] === 1) continue;
    const line = old.text.toString('utf8', a[i]!, a[i + 1]! - 1);
    const at = unmatched.get(line);
    if (at === undefined) unmatched.set(line, [i]);
    else at.push(i);
  }
  const out: DiffedLine[] = [];
  for (let j = 0; j < head; j += 1) out.push({ outcome: old.lines[j]!, old: j });
  for (let j = head; j < newEnd; j += 1) {
    const inPlace = placed[j - head]!;
    if (inPlace >= 0) {
      out.push({ outcome: old.lines[inPlace]!, old: inPlace });
      continue;
    }
    const line = text.toString('utf8', b[j]!, b[j + 1]! - 1);
    const i = unmatched.get(line)?.pop();
    if (i !== undefined) out.push({ outcome: old.lines[i]!, old: i });
    else if (line.trim() === '') out.push({ outcome: BLANK_LINE });
    else {
      const { skill, diagnostics } = parse(line, j);
      out.push({ outcome: lineOutcome(skill, diagnostics), ...(skill === undefined ? {} : { skill }) });
    }
  }
  for (let k = tail; k > 0; k -= 1) out.push({ outcome: old.lines[oldCount - k]!, old: oldCount - k });
  return out;
}
