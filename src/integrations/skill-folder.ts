/**
 * A skill's folder as an MCP-only client needs it: where it is, the files it bundles, and one
 * read on request: resolved through every symlink, it must end inside the folder's real path.
 */
import { constants } from 'node:fs';
import { lstat, open, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { SkillSearchError } from '../errors.js';
import { utf8Boundary } from '../load/skill.js';
import { readBounded } from '../util/read-bounded.js';
import type { Skill } from '../types.js';

/** Files listed (the rest counted), depth walked, entries looked at while listing, and bytes read of a file (the rest cut). */
export const SKILL_FOLDER_LIMITS = Object.freeze({ maxListed: 200, maxDepth: 4, maxVisited: 5000, maxReadBytes: 256 * 1024 });

export type SkillFolderLimits = { readonly [K in keyof typeof SKILL_FOLDER_LIMITS]: number };

/** The folder of a `SKILL.md` skill (not a tool or a legacy command). */
export function skillFolder(skill: Pick<Skill, 'path'>): string | undefined {
  return path.isAbsolute(skill.path) && path.basename(skill.path).toLowerCase() === 'skill.md' ? path.dirname(skill.path) : undefined;
}

/**
 * The regular files under `folder` (relative, `/`-separated, sorted, without `SKILL.md`) and how
 * many more there are: breadth first, no symlinks (they could lead out) or dot-folders.
 */
export async function listSkillFiles(folder: string, limits: SkillFolderLimits = SKILL_FOLDER_LIMITS): Promise<{ files: string[]; more: number }> {
  const files: string[] = [];
  let more = 0;
  let visited = 0;
  let level: string[] = [''];
  for (let depth = 0; depth <= limits.maxDepth && level.length > 0; depth += 1) {
    const next: string[] = [];
    for (const relative of level) {
      let entries: import('node:fs').Dirent[];
      try {
        entries = await readdir(path.join(folder, relative), { withFileTypes: true });
      } catch {
        continue;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        visited += 1;
        if (visited > limits.maxVisited) {
          more += 1;
          continue;
        }
        const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
        if (entry.isDirectory()) {
          if (!entry.name.startsWith('.')) next.push(child);
        } else if (entry.isFile() && child.toLowerCase() !== 'skill.md') {
          if (files.length < limits.maxListed) files.push(child);
          else more += 1;
        }
      }
    }
    level = next;
  }
  return { files: files.sort(), more };
}

/** `truncated`: the file is longer than what `text` holds. */
export type BundledFile = { readonly path: string; readonly text: string; readonly truncated: boolean; readonly size: number };

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);
const decoder = new TextDecoder('utf-8', { fatal: true });

function refused(file: string, why: string): SkillSearchError {
  return new SkillSearchError('BAD_INPUT', `cannot read "${file}": ${why}`);
}

/** `file` (relative to `folder`) as text; a `BAD_INPUT` error naming it when it is outside the folder, missing, special, or not UTF-8 text. */
export async function readSkillFile(folder: string, file: string, limits: SkillFolderLimits = SKILL_FOLDER_LIMITS): Promise<BundledFile> {
  if (file.includes('\0') || path.isAbsolute(file) || path.win32.isAbsolute(file)) throw refused(file, 'give a path relative to the skill folder');
  let root: string;
  let real: string;
  try {
    root = await realpath(folder);
    real = await realpath(path.resolve(folder, file));
  } catch {
    throw refused(file, 'no such file in the skill folder');
  }
  if (!real.startsWith(`${root}${path.sep}`)) throw refused(file, 'it is outside the skill folder');
  // The link-free real path, opened without following a link swapped in meanwhile.
  let handle: import('node:fs/promises').FileHandle;
  try {
    if (!(await lstat(real)).isFile()) throw refused(file, 'not a regular file');
    handle = await open(real, OPEN_FLAGS);
  } catch (error) {
    if (error instanceof SkillSearchError) throw error;
    throw refused(file, 'no such file in the skill folder');
  }
  try {
    // A few bytes past the cap show where the last whole character ends.
    const read = await readBounded(handle, limits.maxReadBytes + 4);
    if (read === undefined) throw refused(file, 'not a regular file');
    const { bytes, size } = read;
    if (bytes.includes(0)) throw refused(file, 'a binary file (only text is returned)');
    const truncated = size > limits.maxReadBytes;
    let text: string;
    try {
      text = decoder.decode(truncated ? bytes.subarray(0, utf8Boundary(bytes, limits.maxReadBytes)) : bytes);
    } catch {
      throw refused(file, 'not UTF-8 text');
    }
    return { path: path.relative(root, real).split(path.sep).join('/'), text, truncated, size };
  } finally {
    await handle.close();
  }
}
