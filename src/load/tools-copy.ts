import { readFileSync } from 'node:fs';
import type { Diagnostic, Skill } from '../types.js';
import { portableStamp, sourceStamp, type StampInputs } from './source-stamp.js';
import { sameStat, toolsCacheKey, toolsFileStat, type ToolsCache } from './tools-cache.js';
import type { LineContext } from './tools-jsonl.js';

/** A catalog's stamps (`SkillCatalog.stamps`). */
export interface CopyStamps {
  readonly sourceStamp: string;
  readonly portableStamp: string | undefined;
}

/**
 * A catalog of one tools file whose bytes a line table kept under another path holds: the
 * catalog saved from that file (named by `base`, its stamps over the old path) is this one's
 * but for the paths, which {@link renameSkill} and {@link renameDiagnostic} put right.
 */
export interface CatalogCopy extends CopyStamps {
  readonly base: CopyStamps;
  /** The file's path in the base (resolved), and now. */
  readonly from: string;
  readonly to: string;
}

export interface CopyInputs {
  /** The stamp inputs of the catalog now, but for the tools file's stat (taken here). */
  readonly stamp: Omit<StampInputs, 'tools'>;
  readonly file: LineContext;
  readonly cache: ToolsCache;
}

/**
 * The catalogs a tools file may be a copy of (docs/store.md, "A catalog at a new path"): each
 * line table kept for a file of the same size, under the same load settings and another path,
 * whose text is the file's bytes, most recently used first. Reads the file once and each
 * candidate's table; the caller stops at the first whose base the store holds.
 */
export function* toolsCopies(inputs: CopyInputs): Generator<CatalogCopy> {
  const { file, cache } = inputs;
  const stat = toolsFileStat(file.path);
  if (stat === undefined || cache.keysOfSize === undefined) return;
  const own = JSON.parse(toolsCacheKey({ ...file, path: '' })) as unknown[];
  const candidates = cache.keysOfSize(stat.size).flatMap((key) => {
    const from = otherPath(key, own);
    return from === undefined || from === file.path ? [] : [{ key, from }];
  });
  if (candidates.length === 0) return;
  let bytes: Buffer;
  try {
    bytes = readFileSync(file.path);
  } catch {
    return;
  }
  if (!sameStat(stat, toolsFileStat(file.path))) return;
  const now = stampsOf(inputs.stamp, file.path, stat);
  if (now === undefined) return;
  for (const { key, from } of candidates) {
    const table = cache.readLines(key);
    if (table === undefined || !table.text.equals(bytes)) continue;
    const base = stampsOf(inputs.stamp, from, table.stat);
    if (base !== undefined) yield { ...now, base, from, to: file.path };
  }
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

function stampsOf(stamp: CopyInputs['stamp'], path: string, stat: StampInputs['tools'][number]['stat']): CopyStamps | undefined {
  const inputs: StampInputs = { ...stamp, options: { ...stamp.options, toolsFiles: [path] }, tools: [{ path, stat }] };
  const source = sourceStamp(inputs);
  return source === undefined ? undefined : { sourceStamp: source, portableStamp: portableStamp(inputs) };
}
