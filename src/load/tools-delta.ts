import { open } from 'node:fs/promises';
import type { Diagnostic, Skill } from '../types.js';
import { toolsStamps, type ReadStamps, type StampInputs } from './source-stamp.js';
import { parseToolsLine } from './tools-jsonl.js';
import {
  diffToolsLines,
  lineDiagnostics,
  lineStarts,
  readToolsLines,
  tableOutcome,
  type LineDiff,
  type LineOutcome,
  type ReadLineTable,
  type ToolsLineTable,
} from './tools-lines.js';
import { sameStat, toolsFileStat, type ToolsCache, type ToolsFileStat, type ToolsKey } from './tools-cache.js';

/** A tools-only catalog as a change of the one its line tables were loaded into (the *base*): written without parsing the unchanged skills. */
export interface CatalogDelta extends ReadStamps {
  readonly diagnostics: readonly Diagnostic[];
  /** The stamps the catalog had when every tools file was as its line table holds it. */
  readonly base: ReadStamps;
  /** The skills in load order: the base's document of a skill whose line did not change (the base's winning lines, in order), else the skill. */
  readonly members: readonly (number | Skill)[];
  /** The base's skill ids by document, as the line tables give them. */
  readonly baseIds: readonly string[];
  /** The changed files' line tables now (as a load of the whole file keeps them), kept once this catalog is saved. */
  readonly tables: () => readonly { readonly key: ToolsKey; readonly table: ToolsLineTable }[];
}

export interface DeltaInputs {
  /** The stamp inputs of the catalog now, but for the tools files' stats (taken here). */
  readonly stamp: Omit<StampInputs, 'tools'>;
  /** The tools files in catalog order, each with what its lines are built with. */
  readonly files: readonly ToolsKey[];
  /** Where the line tables are kept (the store). */
  readonly cache: ToolsCache;
  /** Files copied, then edited (`editedCopy`): each one's table key and the path it was kept for, and the base's stamps; by default each file's own. */
  readonly copied?: { readonly keys: readonly string[]; readonly paths: readonly string[]; readonly base: ReadStamps };
  /** Lines of a file parsed at most, and fewer than half its table's (past it, undefined: the table shares little with the file); unbounded by default. */
  readonly maxParsed?: number;
}

/** Thrown inside the diff once {@link DeltaInputs.maxParsed} lines were parsed. */
const PARSED_ENOUGH = Symbol('parsed enough');

/** One tools file's lines now, and which of them held the skill its id gave in the base. */
interface FileLines {
  readonly context: ToolsKey;
  readonly table: ReadLineTable;
  /** The lines now against the table's; undefined: the file is as the table holds it. */
  readonly diff: LineDiff | undefined;
  /** The text now, to parse a line that was not parsed (it now wins an id it lost before); undefined: it cannot be read. */
  readonly text: () => Buffer | undefined;
  /** Each old line's document in the base when its skill was a member there, else -1. */
  readonly docOf: Int32Array;
}

/**
 * The catalog of `inputs` as a {@link CatalogDelta} (nothing written), or undefined when only a whole load can tell it (a file without
 * a line table, none changed, a file written while read, no skill). Ids and problems go in file then line order, as a load's.
 */
export async function toolsDelta(inputs: DeltaInputs): Promise<CatalogDelta | undefined> {
  const { copied } = inputs;
  // Each file's bytes are read on the thread pool (after its stat) while its line table is read here.
  const stats = inputs.files.map((context) => toolsFileStat(context.path));
  const texts = inputs.files.map((context, f) => (stats[f] === undefined ? Promise.resolve(undefined) : readWhole(context.path, stats[f].size)));
  const tables = inputs.files.map((context, f) => readToolsLines(inputs.cache, copied?.keys[f] ?? context));
  if (tables.some((table) => table === undefined) || stats.some((stat) => stat === undefined)) return undefined;
  if (copied?.paths.some((path, f) => namesPath(tables[f]!, path))) return undefined;
  const files: FileLines[] = [];
  const baseIds: string[] = [];
  for (const [f, context] of inputs.files.entries()) {
    const table = tables[f]!;
    const stat = stats[f]!;
    const docOf = winners(table, baseIds);
    if (sameStat(stat, table.stat)) {
      files.push({ context, table, diff: undefined, text: table.text, docOf });
      continue;
    }
    const text = await texts[f]!;
    if (text === undefined || !sameStat(stat, toolsFileStat(context.path))) return undefined;
    const most = inputs.maxParsed === undefined ? Number.POSITIVE_INFINITY : Math.min(inputs.maxParsed, (table.ids.length - 1) / 2);
    let parsed = 0;
    let diff: LineDiff | undefined;
    try {
      diff = diffToolsLines(table, text, (line, index) => {
        parsed += 1;
        if (parsed > most) throw PARSED_ENOUGH;
        return parseToolsLine(line.trim(), index, context);
      });
    } catch (error) {
      if (error === PARSED_ENOUGH) return undefined;
      throw error;
    }
    if (diff === undefined) return undefined;
    const current = text;
    files.push({ context, table, diff, text: () => current, docOf });
  }
  if (files.every(({ diff }) => diff === undefined)) return undefined;
  const tools = inputs.files.map((file, f) => ({ path: file.path, stat: stats[f] }));
  const baseTools = tools.map((tool, f) => ({ path: tool.path, stat: tables[f]!.stat }));
  const now = toolsStamps(inputs.stamp, tools);
  const base = copied?.base ?? toolsStamps(inputs.stamp, baseTools);
  if (now === undefined || base === undefined) return undefined;
  const members: (number | Skill)[] = [];
  const diagnostics: Diagnostic[] = [];
  const seen = new Set<string>();
  // One file: an id that only one old line had, and no changed line has or had, wins as it did;
  // only the others (few) are told by the ids seen.
  const unsettled = files.length === 1 ? unsettledIds(files[0]!) : undefined;
  for (const { context, table, diff, text, docOf } of files) {
    let starts: number[] | undefined;
    const count = diff === undefined ? table.ids.length : diff.oldOf.length;
    for (let index = 0; index < count; index += 1) {
      const old = diff === undefined ? index : diff.oldOf[index]!;
      const fresh = old < 0 ? diff!.fresh.get(index)! : undefined;
      const outcome = fresh?.outcome ?? (table.problems[old] === undefined ? undefined : tableOutcome(table, old));
      if (outcome !== undefined) diagnostics.push(...lineDiagnostics(context.path, index, outcome));
      const id = fresh === undefined ? table.ids[old]! : fresh.outcome.id;
      if (id === null) continue;
      if (unsettled === undefined || unsettled.has(id)) {
        if (seen.has(id)) continue;
        seen.add(id);
      }
      const doc = old < 0 ? -1 : docOf[old]!;
      if (doc >= 0) members.push(doc);
      else if (fresh?.skill !== undefined) members.push(fresh.skill);
      else {
        const bytes = text();
        if (bytes === undefined) return undefined;
        starts ??= lineStarts(bytes);
        const parsed = parseToolsLine(bytes.toString('utf8', starts[index]!, starts[index + 1]! - 1).trim(), index, context).skill;
        if (parsed?.id !== id) return undefined;
        members.push(parsed);
      }
    }
  }
  if (members.length === 0) return undefined;
  return { ...now, diagnostics, base, members, baseIds, tables: () => nextTables(files, stats) };
}

/** The first `size` bytes of `path` in one read on the thread pool (`readFile` reads 512 KiB per round trip); undefined when fewer could be read. */
async function readWhole(path: string, size: number): Promise<Buffer | undefined> {
  try {
    const handle = await open(path, 'r');
    try {
      const buffer = Buffer.allocUnsafe(size);
      const { bytesRead } = await handle.read(buffer, 0, size, 0);
      return bytesRead === size ? buffer : undefined;
    } finally {
      void handle.close().catch(() => undefined);
    }
  } catch {
    return undefined;
  }
}

/** The tables of the files that changed, each line's outcome its old line's or its own ({@link CatalogDelta.tables}). */
function nextTables(files: readonly FileLines[], stats: readonly (ToolsFileStat | undefined)[]): { key: ToolsKey; table: ToolsLineTable }[] {
  return files.flatMap(({ context, table, diff, text }, f) => {
    if (diff === undefined) return [];
    const lines: LineOutcome[] = [];
    for (let index = 0; index < diff.oldOf.length; index += 1) {
      const old = diff.oldOf[index]!;
      lines.push(old < 0 ? diff.fresh.get(index)!.outcome : tableOutcome(table, old));
    }
    return [{ key: context, table: { stat: stats[f]!, text: text()!, lines, from: { table, oldOf: diff.oldOf } } }];
  });
}

/** Each line of `table` with its document (its place in `won`, the ids won so far, which it extends) when its skill won its id, else -1. */
function winners(table: ReadLineTable, won: string[]): Int32Array {
  const { ids, repeats } = table;
  const docs = new Int32Array(ids.length).fill(-1);
  // The first file's winners are its lines but its repeats: no set of ids. Indexed loops: faster in a cold process (docs/store.md).
  const seen = won.length === 0 ? undefined : new Set(won);
  for (let index = 0; index < ids.length; index += 1) {
    const id = ids[index]!;
    if (id === null || repeats.has(index) || seen?.has(id) === true) continue;
    seen?.add(id);
    docs[index] = won.length;
    won.push(id);
  }
  return docs;
}

/** The ids of a file's lines that repeat, came, changed or went: those whose winning line may have moved. */
function unsettledIds({ table, diff }: FileLines): Set<string> {
  const ids = new Set<string>();
  for (const index of table.repeats) ids.add(table.ids[index]!);
  const used = new Uint8Array(table.ids.length);
  if (diff !== undefined) {
    const { oldOf } = diff;
    for (let index = 0; index < oldOf.length; index += 1) if (oldOf[index]! >= 0) used[oldOf[index]!] = 1;
    for (const { outcome } of diff.fresh.values()) if (outcome.id !== null) ids.add(outcome.id);
  }
  const all = table.ids;
  for (let index = 0; index < all.length; index += 1) {
    const id = all[index]!;
    if (id !== null && used[index] === 0) ids.add(id);
  }
  return ids;
}

/** Whether one of `table`'s problems names `path` (a copy's load would name its own). */
function namesPath(table: ReadLineTable, path: string): boolean {
  return Object.values(table.problems).some((problems) => problems.some(([, message]) => message.includes(path)));
}
