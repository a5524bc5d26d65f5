import { readFile } from 'node:fs/promises';
import { deserialize, serialize } from 'node:v8';
import { resolve } from 'node:path';
import { SkillSearchError } from '../errors.js';
import { isRecord } from '../util/json-file.js';
import type { Diagnostic, LoadedFrom, Skill } from '../types.js';
import { describeValue, validateFields } from './fields.js';
import { DEFAULT_SKILL_LIMITS, buildSkill, diagnostic, type SkillLimits } from './skill.js';
import { lineOutcome, writeToolsLines, type LineOutcome } from './tools-lines.js';
import { sameStat, toolsCacheKey, toolsFileStat, type ToolsCache, type ToolsFileStat, type ToolsKey } from './tools-cache.js';

export interface ToolsOptions {
  /** @default 'skills' */
  readonly source?: LoadedFrom;
  /** @default 5 */
  readonly rank?: number;
  readonly limits?: SkillLimits;
  /** Keep the parsed file and its line table here for the next process (its snapshot, below, and `tools-lines.ts`); none when absent. */
  readonly cache?: ToolsCache;
  /** The previous load of the same file and options: an unchanged line gives back its Skill object; while it holds a load, the snapshot is not read. */
  readonly memo?: ToolsMemo;
}

/** One tools file's last load: its skills by line text (lines with a problem left out, their diagnostics name their line). */
export class ToolsMemo {
  lines = new Map<string, Skill>();
  /** Loaded through this memo before (parsed or from its snapshot): a later load is a reload. */
  loaded = false;
  /** The last load, kept by its caller (the catalog returns it while the file's stat has not moved). */
  last: ToolsResult | undefined;
}

export interface ToolsResult {
  readonly skills: readonly Skill[];
  readonly diagnostics: readonly Diagnostic[];
  /** The file's stat taken before it was read (part of the catalog's `sourceStamp`); undefined when it could not be taken. */
  readonly stat: ToolsFileStat | undefined;
}

/**
 * Loads a JSONL file of tools, one `{id, name, description, whenToUse?}` per line, as skills (path `tools:<file>#<id>`, empty body).
 * A bad line is a `bad-tools-line` diagnostic naming `file:line`; a missing file (the user named it) is a SkillSearchError.
 */
export async function loadToolsJsonl(file: string, options: ToolsOptions = {}): Promise<ToolsResult> {
  const path = resolve(file);
  const limits = options.limits ?? DEFAULT_SKILL_LIMITS;
  const source = options.source ?? 'skills';
  const rank = options.rank ?? 5;
  const cache = options.cache;
  const key: ToolsKey = { path, source, rank, limits };
  // Taken before reading, so a write while we read leaves a stat the snapshot will not match.
  const stat = toolsFileStat(path);
  const memo = options.memo;
  const firstLoad = memo === undefined || memo.lines.size === 0;
  const reload = memo?.loaded === true;
  if (memo !== undefined) memo.loaded = true;
  if (cache !== undefined && stat !== undefined && firstLoad) {
    const snapshot = readToolsSnapshot(cache, key, stat);
    if (snapshot !== undefined) return { ...snapshot, stat };
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new SkillSearchError('NOT_FOUND', `tools file not found: ${path}`, { cause: error });
    throw new SkillSearchError('BAD_FILE', `cannot read tools file ${path}: ${(error as Error).message}`, { cause: error });
  }

  const skills: Skill[] = [];
  const diagnostics: Diagnostic[] = [];
  const lines = bytes.toString('utf8').split('\n');
  const outcomes: LineOutcome[] = [];
  const kept = new Map<string, Skill>();
  for (let index = 0; index < lines.length; index++) {
    const line = (lines[index] ?? '').trim();
    if (line === '') {
      outcomes.push(lineOutcome(undefined, []));
      continue;
    }
    const known = memo?.lines.get(line);
    if (known !== undefined) {
      skills.push(known);
      kept.set(line, known);
      outcomes.push(lineOutcome(known, []));
      continue;
    }
    const parsed = parseToolsLine(line, index, key);
    diagnostics.push(...parsed.diagnostics);
    outcomes.push(lineOutcome(parsed.skill, parsed.diagnostics));
    if (parsed.skill === undefined) continue;
    skills.push(parsed.skill);
    if (memo !== undefined && parsed.diagnostics.length === 0) kept.set(line, parsed.skill);
  }
  if (memo !== undefined) memo.lines = kept;
  if (cache !== undefined && stat !== undefined && sameStat(stat, toolsFileStat(path))) {
    writeToolsSnapshot(cache, key, stat, { skills, diagnostics }, { reload });
    // The first load only: cold processes diff against a table whose catalog the store keeps.
    if (firstLoad) writeToolsLines(cache, key, { stat, text: bytes, lines: outcomes });
  }
  return { skills, diagnostics, stat };
}

/** One non-blank line (0-based `index`, trimmed) as a skill, or its problems (`bad-tools-line` naming `file:line`). */
export function parseToolsLine(
  line: string,
  index: number,
  context: ToolsKey,
): { readonly skill: Skill | undefined; readonly diagnostics: readonly Diagnostic[] } {
  const where = `${context.path}:${index + 1}`;
  const fail = (message: string) => ({ skill: undefined, diagnostics: [diagnostic('bad-tools-line', where, message)] });
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch (error) {
    return fail(`not valid JSON: ${(error as Error).message}`);
  }
  if (!isRecord(record)) return fail(`expected a JSON object, got ${describeValue(record)}`);
  const rawId = record['id'] ?? record['name'];
  if (typeof rawId !== 'string' && typeof rawId !== 'number') return fail('needs a string `id` (or `name`)');
  const id = String(rawId);
  const checked = validateFields(record, { path: where, defaultName: id, limits: context.limits });
  if (checked.fields === undefined) return { skill: undefined, diagnostics: checked.diagnostics };
  const skill = buildSkill(
    { ...checked.fields, hooks: undefined, body: '' },
    { path: `tools:${context.path}#${id}`, source: context.source, rank: context.rank, id },
  );
  return { skill, diagnostics: checked.diagnostics };
}

/** A parsed tools file's `v8.serialize` snapshot in the tools cache, under its key and the file's stat when parsed; an unreadable one is ignored. */
type ToolsSnapshot = Omit<ToolsResult, 'stat'>;

/** The snapshot of `key.path` as it was when `stat` was taken, or undefined. */
function readToolsSnapshot(cache: ToolsCache, key: ToolsKey, stat: ToolsFileStat): ToolsSnapshot | undefined {
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

/** Keeps `snapshot` for the next process (the cache is silent on failure); a watcher's `reload` the cache may write later, one write for edits in a row. */
export function writeToolsSnapshot(
  cache: ToolsCache,
  key: ToolsKey,
  stat: ToolsFileStat,
  snapshot: ToolsSnapshot,
  { reload = false }: { readonly reload?: boolean } = {},
): void {
  const encode = () => serialize({ skills: snapshot.skills, diagnostics: snapshot.diagnostics });
  if (reload && cache.writeSkillsLater !== undefined) cache.writeSkillsLater(toolsCacheKey(key), stat, encode);
  else cache.writeSkills(toolsCacheKey(key), stat, encode());
}

const TEXT_FIELDS = ['id', 'name', 'description', 'path', 'body', 'contentHash'] as const;

/** The fields every consumer of a tools skill reads have their types. */
export function isSkillShaped(skill: unknown): boolean {
  return (
    isRecord(skill) &&
    TEXT_FIELDS.every((field) => typeof skill[field] === 'string') &&
    typeof skill['rank'] === 'number' &&
    typeof skill['tokenEstimate'] === 'number'
  );
}
