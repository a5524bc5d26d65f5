import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { SkillSearchError } from '../errors.js';
import type { Diagnostic, LoadedFrom, Skill } from '../types.js';
import { describeValue, validateFields } from './fields.js';
import { DEFAULT_SKILL_LIMITS, buildSkill, diagnostic, type SkillLimits } from './skill.js';
import { readToolsSnapshot, sameStat, toolsFileStat, writeToolsSnapshot, type ToolsFileStat } from './tools-snapshot.js';

export interface ToolsOptions {
  /** @default 'skills' */
  readonly source?: LoadedFrom;
  /** @default 5 */
  readonly rank?: number;
  readonly limits?: SkillLimits;
  /** Keep the parsed file here for the next process (see `tools-snapshot.ts`); none when absent. */
  readonly snapshotDir?: string;
  /**
   * The previous load of the same file with the same options: a line whose text is unchanged
   * gives back the same Skill object instead of being parsed again. Refilled with this load.
   * While it holds a load, the file is read rather than its snapshot (which has none of them).
   */
  readonly memo?: ToolsMemo;
}

/**
 * One tools file's skills from its last load, by line text, so that a reload after a one-line
 * edit parses that line only, and a watcher's sync finds every other skill unchanged by identity.
 * Lines with a problem are not kept (their diagnostics name their line number).
 */
export class ToolsMemo {
  #lines = new Map<string, Skill>();

  get empty(): boolean {
    return this.#lines.size === 0;
  }

  /** @internal */
  lookup(line: string): Skill | undefined {
    return this.#lines.get(line);
  }

  /** @internal Replaces the memo with one load's lines. */
  refill(lines: Map<string, Skill>): void {
    this.#lines = lines;
  }
}

export interface ToolsResult {
  readonly skills: readonly Skill[];
  readonly diagnostics: readonly Diagnostic[];
  /** The file's stat taken before it was read (part of the catalog's `sourceStamp`); undefined when it could not be taken. */
  readonly stat: ToolsFileStat | undefined;
}

/**
 * Loads a JSONL file of tools, one `{id, name, description, whenToUse?}` per line, as skills
 * (`id` is the line's id, `path` is `tools:<file>#<id>`, the body is empty). A bad line is a
 * `bad-tools-line` diagnostic naming `file:line` and never stops the others. The file itself
 * must exist: it was named by the user, so its absence is a SkillSearchError.
 */
export async function loadToolsJsonl(file: string, options: ToolsOptions = {}): Promise<ToolsResult> {
  const path = resolve(file);
  const limits = options.limits ?? DEFAULT_SKILL_LIMITS;
  const source = options.source ?? 'skills';
  const rank = options.rank ?? 5;
  const snapshotDir = options.snapshotDir;
  const key = { path, source, rank, limits };
  // Taken before reading, so a write while we read leaves a stat the snapshot will not match.
  const stat = toolsFileStat(path);
  const memo = options.memo;
  if (snapshotDir !== undefined && stat !== undefined && memo?.empty !== false) {
    const snapshot = readToolsSnapshot(snapshotDir, key, stat);
    if (snapshot !== undefined) return { ...snapshot, stat };
  }
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new SkillSearchError('NOT_FOUND', `tools file not found: ${path}`, { cause: error });
    throw new SkillSearchError('BAD_FILE', `cannot read tools file ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }

  const skills: Skill[] = [];
  const diagnostics: Diagnostic[] = [];
  const lines = text.split('\n');
  const kept = new Map<string, Skill>();
  for (let index = 0; index < lines.length; index++) {
    const line = (lines[index] ?? '').trim();
    if (line === '') continue;
    const known = memo?.lookup(line);
    if (known !== undefined) {
      skills.push(known);
      kept.set(line, known);
      continue;
    }
    const where = `${path}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      diagnostics.push(diagnostic('bad-tools-line', where, `not valid JSON: ${(error as Error).message}`));
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      diagnostics.push(diagnostic('bad-tools-line', where, `expected a JSON object, got ${describeValue(value)}`));
      continue;
    }
    const record = value as Record<string, unknown>;
    const rawId = record['id'] ?? record['name'];
    if (typeof rawId !== 'string' && typeof rawId !== 'number') {
      diagnostics.push(diagnostic('bad-tools-line', where, 'needs a string `id` (or `name`)'));
      continue;
    }
    const id = String(rawId);
    const checked = validateFields(record, { path: where, defaultName: id, limits });
    diagnostics.push(...checked.diagnostics);
    if (checked.fields === undefined) continue;
    const skill = buildSkill({ ...checked.fields, hooks: undefined, body: '' }, { path: `tools:${path}#${id}`, source, rank, id });
    skills.push(skill);
    if (memo !== undefined && checked.diagnostics.length === 0) kept.set(line, skill);
  }
  memo?.refill(kept);
  if (snapshotDir !== undefined && stat !== undefined && sameStat(stat, toolsFileStat(path)))
    writeToolsSnapshot(snapshotDir, key, stat, { skills, diagnostics });
  return { skills, diagnostics, stat };
}
