import type { Diagnostic, Skill } from '../types.js';
import { sha1Bytes as sha1 } from '../util/hash.js';
import { isRecord, parseJsonQuietly } from '../util/json-file.js';
import { diagnostic } from './skill.js';
import { toolsCacheKey, type ToolsCache, type ToolsFileStat, type ToolsKey } from './tools-cache.js';

/**
 * A tools file's *line table*: its text as last loaded, each line's skill id and problems, and hashes of its lines and of blocks of
 * them, kept in the tools cache; a changed file is diffed against it and only new lines parsed (docs/store.md, "A changed tools
 * file"): by the hashes while the lines stay in place (the text, megabytes, is not read), else by the text. A table whose parts
 * disagree is ignored.
 */

/** Lines per hashed block: a block whose bytes are unchanged is passed over with one hash of the new text. */
const BLOCK_LINES = 256;
/** The bytes kept of a line's and of a block's sha1. */
const LINE_HASH_BYTES = 8;
const BLOCK_HASH_BYTES = 20;
/** Lines out of place (hashed one by one) past which the diff reads the old text instead: lines came or went. */
const MAX_HASHED_LINES = 256;

/** A problem of a line without its location (`[code, message, severity]`): the line moves, its number with it. */
type LineProblem = readonly [Diagnostic['code'], string, Diagnostic['severity']];

/** What one line of a tools file gave: its skill's id (null: none) and problems. */
export interface LineOutcome {
  readonly id: string | null;
  readonly problems: readonly LineProblem[];
}

export interface ToolsLineTable {
  /** The file's stat taken before its text was read. */
  readonly stat: ToolsFileStat;
  readonly text: Buffer;
  /** One per line of `text` split at `\n`. */
  readonly lines: readonly LineOutcome[];
  /** The table it was diffed against, and each line's line there (-1: none): their hashes are taken from it, not computed again. */
  readonly from?: { readonly table: ReadLineTable; readonly oldOf: Int32Array };
}

/** A line table as read: each line's id, the problems of the few lines with any (by index), where each line starts, and the hashes. */
export interface ReadLineTable {
  readonly stat: ToolsFileStat;
  /** The text, read at the first call; undefined when it could not be read or disagrees with `starts`. */
  readonly text: () => Buffer | undefined;
  readonly ids: readonly (string | null)[];
  readonly problems: Readonly<Record<number, readonly LineProblem[]>>;
  /** The lines whose id a line before them in the file has (their skill never wins it). */
  readonly repeats: ReadonlySet<number>;
  /** {@link lineStarts} of `text`. */
  readonly starts: ArrayLike<number>;
  /** Each line's hash ({@link LINE_HASH_BYTES} each, without its newline), then each block's of {@link BLOCK_LINES} lines. */
  readonly hashes: Buffer;
}

/** Line `index`'s outcome in `table`. */
export function tableOutcome(table: ReadLineTable, index: number): LineOutcome {
  return { id: table.ids[index] ?? null, problems: table.problems[index] ?? [] };
}

/** One line's outcome from its skill (none for a blank line) and its diagnostics. */
export function lineOutcome(skill: Skill | undefined, diagnostics: readonly Diagnostic[]): LineOutcome {
  return { id: skill?.id ?? null, problems: diagnostics.map((d) => [d.code, d.message, d.severity] as const) };
}

/** The diagnostics of line `index` (0-based) of `path`, from its outcome. */
export function lineDiagnostics(path: string, index: number, outcome: LineOutcome): Diagnostic[] {
  return outcome.problems.map(([code, message, severity]) => diagnostic(code, `${path}:${index + 1}`, message, severity));
}

/** The line table of `key.path` (or kept under the cache key `key`), or undefined (none kept, or its parts disagree). */
export function readToolsLines(cache: ToolsCache, key: ToolsKey | string): ReadLineTable | undefined {
  const stored = cache.readLines(typeof key === 'string' ? key : toolsCacheKey(key));
  const outcomes = stored === undefined ? undefined : parseJsonQuietly(stored.outcomes);
  if (stored === undefined || !isRecord(outcomes)) return undefined;
  const { ids, problems, repeats } = outcomes;
  if (!Array.isArray(ids) || !isRecord(problems)) return undefined;
  if (!Array.isArray(repeats) || !repeats.every((index) => Number.isInteger(index) && typeof ids[index] === 'string')) return undefined;
  if (!ids.every((id) => id === null || typeof id === 'string')) return undefined;
  const count = ids.length;
  if (stored.starts.length !== 4 * (count + 1) + hashesLength(count)) return undefined;
  const starts = new Uint32Array(count + 1);
  new Uint8Array(starts.buffer).set(stored.starts.subarray(0, 4 * (count + 1)));
  if (starts[0] !== 0 || starts[count] !== stored.stat.size + 1) return undefined;
  for (let i = 1; i <= count; i += 1) if (starts[i]! <= starts[i - 1]!) return undefined;
  let text: Buffer | null | undefined;
  const read = (): Buffer | undefined => {
    if (text === undefined) {
      const got = typeof stored.text === 'function' ? stored.text() : stored.text;
      text = got !== undefined && startsOf(got, starts) ? got : null;
    }
    return text ?? undefined;
  };
  return {
    stat: stored.stat,
    text: read,
    ids: ids as (string | null)[],
    problems: problems as Record<number, LineProblem[]>,
    repeats: new Set(repeats as number[]),
    starts,
    hashes: stored.starts.subarray(4 * (count + 1)),
  };
}

/** The bytes of the hashes of `count` lines: one per line, one per block. */
function hashesLength(count: number): number {
  return LINE_HASH_BYTES * count + BLOCK_HASH_BYTES * Math.ceil(count / BLOCK_LINES);
}

/** The hashes {@link ReadLineTable.hashes} keeps of `text` split at `starts`; a line `from` knows, its hash there. */
function hashLines(text: Buffer, starts: ArrayLike<number>, from: ToolsLineTable['from']): Buffer {
  const count = starts.length - 1;
  const out = Buffer.alloc(hashesLength(count));
  for (let i = 0; i < count; i += 1) {
    const old = from?.oldOf[i] ?? -1;
    if (old >= 0) from!.table.hashes.copy(out, LINE_HASH_BYTES * i, LINE_HASH_BYTES * old, LINE_HASH_BYTES * (old + 1));
    else sha1(text.subarray(starts[i]!, starts[i + 1]! - 1)).copy(out, LINE_HASH_BYTES * i, 0, LINE_HASH_BYTES);
  }
  for (let block = 0, at = LINE_HASH_BYTES * count; block * BLOCK_LINES < count; block += 1, at += BLOCK_HASH_BYTES) {
    sha1(text.subarray(starts[block * BLOCK_LINES]!, starts[Math.min(count, (block + 1) * BLOCK_LINES)]! - 1)).copy(out, at);
  }
  return out;
}

/** Keeps `table` for the next process (the cache is silent on failure). */
export function writeToolsLines(cache: ToolsCache, key: ToolsKey, table: ToolsLineTable): void {
  const problems: Record<number, readonly LineProblem[]> = {};
  for (const [index, line] of table.lines.entries()) if (line.problems.length > 0) problems[index] = line.problems;
  const ids = table.lines.map((line) => line.id);
  const seen = new Set<string>();
  const repeats: number[] = [];
  for (const [index, id] of ids.entries()) {
    if (id === null) continue;
    if (seen.has(id)) repeats.push(index);
    else seen.add(id);
  }
  const starts = Uint32Array.from(lineStarts(table.text));
  if (starts.length !== table.lines.length + 1) return;
  cache.writeLines(toolsCacheKey(key), {
    stat: table.stat,
    text: table.text,
    starts: Buffer.concat([Buffer.from(starts.buffer, starts.byteOffset, starts.byteLength), hashLines(table.text, starts, table.from)]),
    outcomes: JSON.stringify({ ids, problems, repeats }),
  });
}

/** True when `starts` are {@link lineStarts} of `text` (checked, not found: no scan of the text). */
function startsOf(text: Buffer, starts: Uint32Array): boolean {
  const last = starts.length - 1;
  if (starts[0] !== 0 || starts[last] !== text.length + 1) return false;
  for (let i = 1; i < last; i += 1) if (starts[i]! <= starts[i - 1]! || text[starts[i]! - 1] !== 10) return false;
  return true;
}

/** Where each line of `text` starts; one more entry, the end of the text plus one, closes the last. */
export function lineStarts(text: Buffer): number[] {
  const starts = [0];
  for (let at = text.indexOf(10); at !== -1; at = text.indexOf(10, at + 1)) starts.push(at + 1);
  starts.push(text.length + 1);
  return starts;
}

/** The new text's lines as {@link diffToolsLines} found them. */
export interface LineDiff {
  /** Each new line's old line of the same text (its skill is the one the old load made), or -1. */
  readonly oldOf: Int32Array;
  /** The outcome of each line with no old line (blank, or parsed now, with the skill it made). */
  readonly fresh: ReadonlyMap<number, { readonly outcome: LineOutcome; readonly skill?: Skill }>;
}

/** Parses one line of the new text (0-based `index`). */
type ParseLine = (line: string, index: number) => { readonly skill: Skill | undefined; readonly diagnostics: readonly Diagnostic[] };

/**
 * The new text's lines, each with the outcome of the old line of the same text, else `parse`'s; only lines found nowhere are parsed.
 * By the table's hashes while the lines stay in place ({@link diffInPlace}), else by its text ({@link diffByText}); undefined when
 * the text is needed and cannot be read.
 */
export function diffToolsLines(old: ReadLineTable, text: Buffer, parse: ParseLine): LineDiff | undefined {
  const inPlace = diffInPlace(old, text, parse);
  if (inPlace !== undefined) return inPlace;
  const oldText = old.text();
  return oldText === undefined ? undefined : diffByText(old, oldText, text, parse);
}

/**
 * {@link diffToolsLines} when the new text has a line for each old line, lines added at the end aside, and at most
 * {@link MAX_HASHED_LINES} differ from the old line in their place: new line `i` is old line `i` when their hashes agree (a block of
 * unchanged lines by one hash of its bytes); the others are found among the old lines left by hash (a line moved), else parsed.
 * Undefined otherwise (lines came or went): nothing parsed.
 */
function diffInPlace(old: ReadLineTable, text: Buffer, parse: ParseLine): LineDiff | undefined {
  const a = old.starts;
  const count = a.length - 1;
  const { hashes } = old;
  const blocks = LINE_HASH_BYTES * count;
  const length = text.length;
  const oldOf: number[] = [];
  /** New lines out of place: their starts and ends. */
  const out: [number, number][] = [];
  const left: number[] = [];
  let q = 0;
  for (let i = 0; i < count; ) {
    if (q > length) return undefined;
    if (i % BLOCK_LINES === 0) {
      const end = Math.min(count, i + BLOCK_LINES);
      const after = q + a[end]! - 1 - a[i]!;
      const at = blocks + (i / BLOCK_LINES) * BLOCK_HASH_BYTES;
      if ((after === length || (after < length && text[after] === 10)) && sha1(text.subarray(q, after)).equals(hashes.subarray(at, at + BLOCK_HASH_BYTES))) {
        for (let k = i; k < end; k += 1) oldOf.push(k);
        q = after + 1;
        i = end;
        continue;
      }
    }
    const newline = text.indexOf(10, q);
    const end = newline === -1 ? length : newline;
    if (
      sha1(text.subarray(q, end))
        .subarray(0, LINE_HASH_BYTES)
        .equals(hashes.subarray(LINE_HASH_BYTES * i, LINE_HASH_BYTES * (i + 1)))
    )
      oldOf.push(i);
    else {
      if (out.length === MAX_HASHED_LINES) return undefined;
      out.push([q, end]);
      left.push(i);
      oldOf.push(-1);
    }
    q = end + 1;
    i += 1;
  }
  // Lines added at the end.
  while (q <= length) {
    if (out.length === MAX_HASHED_LINES) return undefined;
    const newline = text.indexOf(10, q);
    const end = newline === -1 ? length : newline;
    out.push([q, end]);
    oldOf.push(-1);
    q = end + 1;
  }
  const unmatched = new Map<string, number[]>();
  for (let k = left.length - 1; k >= 0; k -= 1) {
    const i = left[k]!;
    const hash = hashes.toString('latin1', LINE_HASH_BYTES * i, LINE_HASH_BYTES * (i + 1));
    const at = unmatched.get(hash);
    if (at === undefined) unmatched.set(hash, [i]);
    else at.push(i);
  }
  const found = Int32Array.from(oldOf);
  const fresh = new Map<number, { readonly outcome: LineOutcome; readonly skill?: Skill }>();
  let next = 0;
  for (let nj = 0; nj < found.length; nj += 1) {
    if (found[nj]! >= 0) continue;
    const [start, end] = out[next++]!;
    const oi = unmatched.get(sha1(text.subarray(start, end)).toString('latin1', 0, LINE_HASH_BYTES))?.pop();
    if (oi !== undefined) found[nj] = oi;
    else freshLine(fresh, nj, text.toString('utf8', start, end), parse);
  }
  return { oldOf: found, fresh };
}

/** Line `index` (text `line`) with no old line: blank, or parsed. */
function freshLine(fresh: Map<number, { readonly outcome: LineOutcome; readonly skill?: Skill }>, index: number, line: string, parse: ParseLine): void {
  if (line.trim() === '') fresh.set(index, { outcome: lineOutcome(undefined, []) });
  else {
    const { skill, diagnostics } = parse(line, index);
    fresh.set(index, { outcome: lineOutcome(skill, diagnostics), ...(skill === undefined ? {} : { skill }) });
  }
}

/**
 * {@link diffToolsLines} by the old text. Runs equal in place are found from the start by comparing blocks (doubling, then halving),
 * stepping over a line edited in place; after two differing lines in a row, the rest is matched from the end, then in place from
 * either end, then by text (a moved line).
 */
function diffByText(old: ReadLineTable, oldText: Buffer, text: Buffer, parse: ParseLine): LineDiff {
  const a = old.starts;
  const oldCount = a.length - 1;
  const length = text.length;
  const used = new Uint8Array(oldCount);
  /** Each new line's start (one more entry closes the last), and the old line it matched or -1. */
  const b: number[] = [];
  const oldOf: number[] = [];
  const match = (i: number): void => {
    used[i] = 1;
    oldOf.push(i);
  };
  /** Old lines `i + from`…`i + to - 1`, each with its newline, are the new bytes at their place after `q` (old line `i`'s). */
  const block = (i: number, from: number, to: number, q: number): boolean => {
    const start = q + a[i + from]! - a[i]!;
    const bytes = a[i + to]! - a[i + from]!;
    return start + bytes <= length && text.compare(oldText, a[i + from]!, a[i + to]!, start, start + bytes) === 0;
  };
  let i = 0;
  let q = 0;
  let missed = false;
  while (i < oldCount && q <= length) {
    // Lines with a newline after them: all but the last.
    const most = oldCount - 1 - i;
    let run = 0;
    // The first `low` lines are known equal; each comparison reads only the lines past them.
    if (most > 0 && block(i, 0, 1, q)) {
      let low = 1;
      let high = 2;
      while (high <= most && block(i, low, high, q)) {
        low = high;
        high *= 2;
      }
      high = Math.min(high, most + 1);
      while (high - low > 1) {
        const middle = (low + high) >> 1;
        if (block(i, low, middle, q)) low = middle;
        else high = middle;
      }
      run = low;
    }
    if (run > 0) {
      for (let k = 0; k < run; k += 1) {
        b.push(q + a[i + k]! - a[i]!);
        match(i + k);
      }
      q += a[i + run]! - a[i]!;
      i += run;
      missed = false;
      continue;
    }
    const newline = text.indexOf(10, q);
    const end = newline === -1 ? length : newline;
    const same = text.compare(oldText, a[i]!, a[i + 1]! - 1, q, end) === 0;
    // Two lines in a row differ in place: a line came or went here.
    if (!same && missed) break;
    b.push(q);
    if (same) match(i);
    else oldOf.push(-1);
    missed = !same;
    i += 1;
    q = end + 1;
  }
  const scanned = b.length;
  for (let from = q; from <= length; ) {
    b.push(from);
    oldOf.push(-1);
    const newline = text.indexOf(10, from);
    if (newline === -1) break;
    from = newline + 1;
  }
  b.push(length + 1);
  const newCount = b.length - 1;
  const same = (oi: number, nj: number): boolean => text.compare(oldText, a[oi]!, a[oi + 1]! - 1, b[nj]!, b[nj + 1]! - 1) === 0;
  // The rest, from the end, then in place counted from either end.
  let tail = 0;
  while (tail < oldCount - i && tail < newCount - scanned && same(oldCount - 1 - tail, newCount - 1 - tail)) {
    used[oldCount - 1 - tail] = 1;
    oldOf[newCount - 1 - tail] = oldCount - 1 - tail;
    tail += 1;
  }
  const free = (oi: number, nj: number): boolean => oi >= i && oi < oldCount - tail && used[oi] === 0 && same(oi, nj);
  for (let nj = scanned; nj < newCount - tail; nj += 1) {
    const fromTail = nj + oldCount - newCount;
    const oi = free(nj, nj) ? nj : free(fromTail, nj) ? fromTail : -1;
    if (oi < 0) continue;
    used[oi] = 1;
    oldOf[nj] = oi;
  }
  const unmatched = new Map<string, number[]>();
  for (let oi = oldCount - 1; oi >= 0; oi -= 1) {
    if (used[oi] === 1) continue;
    const line = oldText.toString('utf8', a[oi]!, a[oi + 1]! - 1);
    const at = unmatched.get(line);
    if (at === undefined) unmatched.set(line, [oi]);
    else at.push(oi);
  }
  const fresh = new Map<number, { readonly outcome: LineOutcome; readonly skill?: Skill }>();
  const found = Int32Array.from(oldOf);
  for (let nj = 0; nj < newCount; nj += 1) {
    if (found[nj]! >= 0) continue;
    const line = text.toString('utf8', b[nj]!, b[nj + 1]! - 1);
    const oi = unmatched.get(line)?.pop();
    if (oi !== undefined) found[nj] = oi;
    else freshLine(fresh, nj, line, parse);
  }
  return { oldOf: found, fresh };
}
