import { deserialize, serialize } from 'node:v8';
import type { Diagnostic, Skill } from '../types.js';
import { isRecord } from '../util/json-file.js';
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
  if (!isRecord(data) || !Array.isArray(data.skills) || !Array.isArray(data.diagnostics) || !data.skills.every(isSkillShaped)) return undefined;
  for (const skill of data.skills as Skill[]) {
    if (skill.keywords !== undefined) Object.freeze(skill.keywords);
    Object.freeze(skill);
  }
  return { skills: data.skills as Skill[], diagnostics: data.diagnostics as Diagnostic[] };
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

const TEXT_FIELDS = ['id', 'name', 'description', 'path', 'body', 'contentHash'] as const;

/** The fields every consumer of a tools skill reads have their types. */
function isSkillShaped(skill: unknown): boolean {
  return (
    isRecord(skill) &&
    TEXT_FIELDS.every((field) => typeof skill[field] === 'string') &&
    typeof skill['rank'] === 'number' &&
    typeof skill['tokenEstimate'] === 'number'
  );
}
