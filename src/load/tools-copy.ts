import { readFileSync } from 'node:fs';
import type { Diagnostic, Skill } from '../types.js';
import { toolsStamps, type ReadStamps, type StampInputs } from './source-stamp.js';
import { sameStat, toolsCacheKey, toolsFileStat, type ToolsCache, type ToolsFileStat, type ToolsKey } from './tools-cache.js';
import { toolsDelta, type CatalogDelta, type DeltaInputs } from './tools-delta.js';
import { getOrAdd } from '../util/get-or-add.js';

/** A tools file of a {@link CatalogCopy}: where the base had it, where it is now, and its line table. */
export interface FileCopy {
  /** The file's path in the base (resolved), and now (the same for a file the copy did not move). */
  readonly from: string;
  readonly to: string;
  /** The base's line table (its cache key), the key the copy's goes under, and the stat the copy's bytes were read under. */
  readonly table: { readonly from: string; readonly to: string; readonly stat: ToolsFileStat };
}

/** Tools files whose bytes tables kept at other paths hold: the catalog saved from those (`base`) is this one but for the paths ({@link renameSkill}). */
export interface CatalogCopy extends ReadStamps {
  readonly base: ReadStamps;
  /** Each tools file, in the catalog's order; at least one moved. */
  readonly files: readonly FileCopy[];
}

/** What a copy is told from: the catalog's stamp inputs, its tools files and the store's line tables. */
export type CopyInputs = Pick<DeltaInputs, 'stamp' | 'files' | 'cache'>;

/** Bases (one line table per file) tried at most: files of one size kept under many paths could make many. */
const MAX_BASES = 16;

/** An edited copy's tables are those of files within this share of its size; past the two caps the catalog is loaded whole. */
const EDITED_SLACK = 1 / 8;
const MAX_EDITED_BASES = 2;
const MAX_EDITED_LINES = 256;

/** A catalog of tools files copied from others and then edited, as a change of the catalog those made ({@link editedCopy}). */
export interface EditedCopy {
  /** The change: its kept members are the base's documents, whose records name the old paths. */
  readonly delta: CatalogDelta;
  /** Each tools file, in the catalog's order: where the base had it, and where it is now. */
  readonly files: readonly Pick<FileCopy, 'from' | 'to'>[];
}

/**
 * The catalog the tools files are a copy of (docs/store.md, "A catalog at a new path"): per file a line table kept under the same load
 * settings holding its bytes, at distinct paths (one at least moved), whose catalog the store holds (`held`); most recently used first.
 */
export function toolsCopy(inputs: CopyInputs, held: (base: ReadStamps) => boolean): CatalogCopy | undefined {
  const { files, cache } = inputs;
  if (files.length === 0 || cache.tablesOfSize === undefined || cache.holdsText === undefined) return undefined;
  const stats: ToolsFileStat[] = [];
  for (const file of files) {
    const stat = toolsFileStat(file.path);
    if (stat === undefined) return undefined;
    stats.push(stat);
  }
  // Those whose base is saved first (a row read each), the texts last (each file read once, compared in the store).
  const bases = combinations(candidateTables(files, cache, 0, stats)).filter((chosen) => {
    const base = baseOf(inputs, files, chosen);
    return base !== undefined && held(base);
  });
  if (bases.length === 0) return undefined;
  // Each file read once, when a base first asks for it (null: it could not be read).
  const bytes = new Map<number, Buffer | null>();
  const read = (i: number): Buffer | null =>
    getOrAdd(bytes, i, () => {
      try {
        return readFileSync(files[i]!.path);
      } catch {
        return null;
      }
    });
  const found = bases.find((chosen) =>
    chosen.every((table, i) => {
      const text = read(i);
      return text !== null && cache.holdsText!(table.key, text);
    }),
  );
  if (found === undefined || !files.every((file, i) => sameStat(stats[i]!, toolsFileStat(file.path)))) return undefined;
  const tools = files.map((file, i) => ({ path: file.path, stat: stats[i] }));
  const now = toolsStamps(inputs.stamp, tools);
  const base = toolsStamps(inputs.stamp, keptAt(found));
  if (now === undefined || base === undefined) return undefined;
  return {
    ...now,
    base,
    files: files.map((file, i) => ({ from: found[i]!.from, to: file.path, table: { from: found[i]!.key, to: toolsCacheKey(file), stat: stats[i]! } })),
  };
}

/** As {@link toolsCopy}, for tables of files of about each file's size: the files told as a delta against them (`toolsDelta`). */
export async function editedCopy(inputs: CopyInputs, held: (base: ReadStamps) => boolean): Promise<EditedCopy | undefined> {
  const { files, cache } = inputs;
  if (files.length === 0 || cache.tablesOfSize === undefined) return undefined;
  const bases: { chosen: Table[]; base: ReadStamps }[] = [];
  for (const chosen of combinations(candidateTables(files, cache, EDITED_SLACK))) {
    const base = baseOf(inputs, files, chosen);
    if (base !== undefined && held(base)) bases.push({ chosen, base });
    if (bases.length === MAX_EDITED_BASES) break;
  }
  for (const { chosen, base } of bases) {
    const delta = await toolsDelta({
      ...inputs,
      copied: { keys: chosen.map((table) => table.key), paths: chosen.map((table) => table.from), base },
      maxParsed: MAX_EDITED_LINES,
    });
    if (delta !== undefined) return { delta, files: files.map((file, i) => ({ from: chosen[i]!.from, to: file.path })) };
  }
  return undefined;
}

/** Keeps each base line table as the copy's (under its stat) for its next edit, but not a table whose outcomes name its old path. */
export function keepCopyTable(copy: CatalogCopy, cache: ToolsCache): void {
  for (const { from, table } of copy.files) {
    if (table.from === table.to) continue;
    const lines = cache.readLines(table.from);
    if (lines === undefined || lines.outcomes.includes(JSON.stringify(from).slice(1, -1))) continue;
    const text = typeof lines.text === 'function' ? lines.text() : lines.text;
    if (text !== undefined) cache.writeLines(table.to, { ...lines, text, stat: table.stat });
  }
}

/** `skill` of the base with its path moved to its file's in the copy. */
export function renameSkill(skill: Skill, copy: { readonly files: readonly Pick<FileCopy, 'from' | 'to'>[] }): Skill {
  for (const { from, to } of copy.files) {
    const prefix = `tools:${from}#`;
    if (from !== to && skill.path.startsWith(prefix)) return { ...skill, path: `tools:${to}#${skill.path.slice(prefix.length)}` };
  }
  return skill;
}

/** A base's load problem as the copy's load tells it (the new paths; each old path replaced once, so files that swapped paths stay apart). */
export function renameDiagnostic(diagnostic: Diagnostic, copy: { readonly files: readonly Pick<FileCopy, 'from' | 'to'>[] }): Diagnostic {
  const moved = new Map(copy.files.filter(({ from, to }) => from !== to).map(({ from, to }) => [from, to]));
  if (moved.size === 0) return diagnostic;
  // Longest first: a path that starts another is not taken for it.
  const pattern = new RegExp(
    [...moved.keys()]
      .sort((a, b) => b.length - a.length)
      .map((from) => from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('|'),
    'g',
  );
  const rename = (text: string) => text.replace(pattern, (from) => moved.get(from)!);
  return { ...diagnostic, path: rename(diagnostic.path), message: rename(diagnostic.message) };
}

/** A line table another file's load kept, and the path and stat it was kept under. */
interface Table {
  readonly key: string;
  readonly from: string;
  readonly stat: ToolsFileStat;
}

/** For each file, the tables kept under its load settings for files of its size (within the share `slack`), most recently used first. */
function candidateTables(files: readonly ToolsKey[], cache: ToolsCache, slack: number, stats = files.map((file) => toolsFileStat(file.path))): Table[][] {
  return files.map((file, i) => {
    const stat = stats[i];
    if (stat === undefined) return [];
    return cache.tablesOfSize!(stat.size, Math.ceil(stat.size * slack)).flatMap((table) => {
      const from = otherPath(table.key, file);
      return from === undefined ? [] : [{ key: table.key, from, stat: table.stat }];
    });
  });
}

/** The stamps of the catalog `chosen` tables were loaded into, when they are at distinct paths, one at least not the file's now; else undefined. */
function baseOf(inputs: CopyInputs, files: readonly ToolsKey[], chosen: readonly Table[]): ReadStamps | undefined {
  const froms = chosen.map((table) => table.from);
  if (new Set(froms).size !== froms.length || froms.every((from, i) => from === files[i]!.path)) return undefined;
  return toolsStamps(inputs.stamp, keptAt(chosen));
}

/** The tools files `tables` were kept for, with the stats they were read under. */
function keptAt(tables: readonly Table[]): StampInputs['tools'] {
  return tables.map((table) => ({ path: table.from, stat: table.stat }));
}

/** Every choice of one table per file (the first of each first), at most {@link MAX_BASES}. */
function combinations<T>(choices: readonly (readonly T[])[]): T[][] {
  let out: T[][] = [[]];
  for (const options of choices) {
    out = out.flatMap((chosen) => options.map((option) => [...chosen, option])).slice(0, MAX_BASES);
    if (out.length === 0) return out;
  }
  return out;
}

/** The path `key` keeps a table for when its other load settings are `file`'s; else undefined. */
function otherPath(key: string, file: ToolsKey): string | undefined {
  try {
    const path: unknown = (JSON.parse(key) as unknown[])[1];
    return typeof path === 'string' && toolsCacheKey({ ...file, path }) === key ? path : undefined;
  } catch {
    return undefined;
  }
}
