import { readFileSync } from 'node:fs';
import type { Diagnostic, Skill } from '../types.js';
import { readStamps, type ReadStamps, type StampInputs } from './source-stamp.js';
import { sameStat, toolsCacheKey, toolsFileStat, type ToolsCache, type ToolsFileStat } from './tools-cache.js';
import type { LineContext } from './tools-jsonl.js';

/**
 * A catalog of one tools file whose bytes a line table kept under another path holds: the
 * catalog saved from that file (named by `base`, its stamps over the old path) is this one's
 * but for the paths, which {@link renameSkill} and {@link renameDiagnostic} put right.
 */
export interface CatalogCopy extends ReadStamps {
  readonly base: ReadStamps;
  /** The file's path in the base (resolved), and now. */
  readonly from: string;
  readonly to: string;
  /** The base's line table (its cache key), the key the copy's goes under, and the stat the copy's bytes were read under. */
  readonly table: { readonly from: string; readonly to: string; readonly stat: ToolsFileStat };
}

export interface CopyInputs {
  /** The stamp inputs of the catalog now, but for the tools file's stat (taken here). */
  readonly stamp: Omit<StampInputs, 'tools'>;
  readonly file: LineContext;
  readonly cache: ToolsCache;
}

/**
 * The catalog a tools file is a copy of (docs/store.md, "A catalog at a new path"): the first,
 * most recently used, line table kept under the same load settings and another path whose text
 * is the file's bytes and whose catalog the store holds (`held`); undefined when there is none.
 */
export function toolsCopy(inputs: CopyInputs, held: (base: ReadStamps) => boolean): CatalogCopy | undefined {
  const { file, cache } = inputs;
  const stat = toolsFileStat(file.path);
  if (stat === undefined || cache.tablesOfSize === undefined || cache.holdsText === undefined) return undefined;
  const own = JSON.parse(toolsCacheKey({ ...file, path: '' })) as unknown[];
  // Those whose base is saved first (a row read), the text last (the file read once, each compared in the store).
  const candidates = cache.tablesOfSize(stat.size).flatMap((table) => {
    const from = otherPath(table.key, own);
    const base = from === undefined || from === file.path ? undefined : stampsOf(inputs.stamp, from, table.stat);
    return base === undefined || !held(base) ? [] : [{ key: table.key, from, base }];
  });
  if (candidates.length === 0) return undefined;
  let bytes: Buffer;
  try {
    bytes = readFileSync(file.path);
  } catch {
    return undefined;
  }
  const now = stampsOf(inputs.stamp, file.path, stat);
  if (now === undefined || !sameStat(stat, toolsFileStat(file.path))) return undefined;
  const found = candidates.find(({ key }) => cache.holdsText!(key, bytes));
  return found === undefined
    ? undefined
    : { ...now, base: found.base, from: found.from!, to: file.path, table: { from: found.key, to: toolsCacheKey(file), stat } };
}

/**
 * Keeps the base's line table as the copy's (the same text, read under the copy's stat), so
 * the copy's next edit is told from it (docs/store.md, "A changed tools file") without a load
 * of the whole file. Not when its outcomes name the old path (a problem's message).
 */
export function keepCopyTable(copy: CatalogCopy, cache: ToolsCache): void {
  const lines = cache.readLines(copy.table.from);
  if (lines === undefined || lines.outcomes.includes(JSON.stringify(copy.from).slice(1, -1))) return;
  cache.writeLines(copy.table.to, { ...lines, stat: copy.table.stat });
}

/** `skill` of the base with its path moved to the copy's file. */
export function renameSkill(skill: Skill, copy: Pick<CatalogCopy, 'from' | 'to'>): Skill {
  const prefix = `tools:${copy.from}#`;
  return skill.path.startsWith(prefix) ? { ...skill, path: `tools:${copy.to}#${skill.path.slice(prefix.length)}` } : skill;
}

/** A load problem of the base as the copy's load tells it (`file:line` of the new path). */
export function renameDiagnostic(diagnostic: Diagnostic, copy: Pick<CatalogCopy, 'from' | 'to'>): Diagnostic {
  return { ...diagnostic, path: diagnostic.path.replaceAll(copy.from, copy.to), message: diagnostic.message.replaceAll(copy.from, copy.to) };
}

/** The path `key` keeps a table for when its other settings are `own`'s (the key with an empty path); else undefined. */
function otherPath(key: string, own: readonly unknown[]): string | undefined {
  let parts: unknown;
  try {
    parts = JSON.parse(key);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parts) || parts.length !== own.length || typeof parts[1] !== 'string') return undefined;
  return parts.every((part, i) => i === 1 || JSON.stringify(part) === JSON.stringify(own[i])) ? parts[1] : undefined;
}

function stampsOf(stamp: CopyInputs['stamp'], path: string, stat: StampInputs['tools'][number]['stat']): ReadStamps | undefined {
  return readStamps({ ...stamp, options: { ...stamp.options, toolsFiles: [path] }, tools: [{ path, stat }] });
}
