import { deserialize, serialize } from 'node:v8';
import type { Diagnostic, Skill } from '../types.js';
import { toolsCacheKey, type ToolsCache, type ToolsFileStat, type ToolsKey } from './tools-cache.js';

/**
 * A parsed tools file as a `v8.serialize` snapshot in the tools cache, so a process that loads a
 * large unchanged registry whole skips parsing it. Kept under everything that shaped the skills,
 * with the file's stat when parsed (any other stat: parse again). An unreadable snapshot is ignored.
 */
export interface ToolsSnapshot {
  readonly skills: readonly Skill[];
  readonly diagnostics: readonly Diagnostic[];
}

/** The snapshot of `key.path` as it was when `stat` was taken, or undefined. */
export function readToolsSnapshot(cache: ToolsCache, key: ToolsKey, stat: ToolsFileStat): ToolsSnapshot | undefined {
  let data: unknown;
  try {
    const body = cache.readSkills(toolsCacheKey(key), stat);
    if (body === undefined) return undefined;
    data = deserialize(body);
  } catch {
    return undefined;
  }
  const record = data as { skills?: unknown; diagnostics?: unknown } | null;
  if (
    record === null ||
    typeof record !== 'object' ||
    !Array.isArray(record.skills) ||
    !Array.isArray(record.diagnostics) ||
    !record.skills.every(isSkillShaped)
  ) {
    return undefined;
  }
  for (const skill of record.skills as Skill[]) {
    if (skill.keywords !== undefined) Object.freeze(skill.keywords);
    Object.freeze(skill);
  }
  return { skills: record.skills as Skill[], diagnostics: record.diagnostics as Diagnostic[] };
}

export interface SnapshotWriteOptions {
  /** A watcher's reload: the cache may write it later (`writeSkillsLater`), one write for edits in a row. @default false */
  readonly reload?: boolean;
}

/** Keeps `snapshot` for the next process (the cache is silent on failure). */
export function writeToolsSnapshot(
  cache: ToolsCache,
  key: ToolsKey,
  stat: ToolsFileStat,
  snapshot: ToolsSnapshot,
  { reload = false }: SnapshotWriteOptions = {},
): void {
  const encode = () => serialize({ skills: snapshot.skills, diagnostics: snapshot.diagnostics });
  if (reload && cache.writeSkillsLater !== undefined) cache.writeSkillsLater(toolsCacheKey(key), stat, encode);
  else cache.writeSkills(toolsCacheKey(key), stat, encode());
}

/** The fields every consumer of a tools skill reads, with their types. */
function isSkillShaped(value: unknown): boolean {
  const skill = value as Partial<Skill> | null;
  return (
    typeof skill === 'object' &&
    skill !== null &&
    typeof skill.id === 'string' &&
    typeof skill.name === 'string' &&
    typeof skill.description === 'string' &&
    typeof skill.path === 'string' &&
    typeof skill.body === 'string' &&
    typeof skill.contentHash === 'string' &&
    typeof skill.rank === 'number' &&
    typeof skill.tokenEstimate === 'number'
  );
}
