/**
 * A skill's folder as an MCP-only client needs it: where it is, which files it bundles
 * (`scripts/`, `references/`, …), and one of them read on request. Reading never leaves the
 * folder: the requested path is resolved through every symlink and must end inside the
 * folder's own real path; only regular files are read, and at most `maxReadBytes` of them.
 */
import { constants } from 'node:fs';
import { lstat, open, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { SkillSearchError } from '../errors.js';
import { utf8Boundary } from '../load/skill.js';
import type { Skill } from '../types.js';

export const SKILL_FOLDER_LIMITS = Object.freeze({
  /** Files listed at most; the listing says how many more there are. */
  maxListed: 200,
  /** Folder depth walked below the skill folder. */
  maxDepth: 4,
  /** Entries looked at while listing, whatever their kind (a folder of a million files costs no more). */
  maxVisited: 5000,
  /** A bundled file longer than this is cut (and says so). */
  maxReadBytes: 256 * 1024,
});

export type SkillFolderLimits = { readonly [K in keyof typeof SKILL_FOLDER_LIMITS]: number };

/** The folder of a skill that has one: a `SKILL.md` file's parent (not a tool, not a legacy command file). */
export function skillFolder(skill: Pick<Skill, 'path'>): string | undefined {
  return path.isAbsolute(skill.path) && path.basename(skill.path).toLowerCase() === 'skill.md' ? path.dirname(skill.path) : undefined;
}

export interface FolderListing {
  /** Paths relative to the folder, `/`-separated, sorted; `SKILL.md` itself left out. */
  readonly files: readonly string[];
  /** Files (or unvisited entries) beyond the listing's limits. */
  readonly more: number;
}

/**
 * The regular files under `folder`, breadth first, without following symlinks (a link is not
 * listed: reading it could lead out of the folder) or descending into dot-folders.
 */
export async function listSkillFiles(folder: string, limits: SkillFolderLimits = SKILL_FOLDER_LIMITS): Promise<FolderListing> {
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

export interface BundledFile {
  readonly path: string;
  readonly text: string;
  /** The file is longer than what `text` holds. */
  readonly truncated: boolean;
  readonly size: number;
}

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);
const decoder = new TextDecoder('utf-8', { fatal: true });

function refused(file: string, why: string): SkillSearchError {
  return new SkillSearchError('BAD_INPUT', `cannot read "${file}": ${why}`);
}

/**
 * `file` (relative to `folder`) as text. Throws a `BAD_INPUT` error naming the file when it is
 * outside the folder (after resolving symlinks), missing, not a regular file, or not UTF-8 text.
 */
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
    const stats = await handle.stat();
    if (!stats.isFile()) throw refused(file, 'not a regular file');
    // A few bytes past the cap show where the last whole character ends.
    const buffer = Buffer.alloc(Math.min(stats.size, limits.maxReadBytes + 4));
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const bytes = buffer.subarray(0, filled);
    if (bytes.includes(0)) throw refused(file, 'a binary file (only text is returned)');
    const truncated = stats.size > limits.maxReadBytes;
    let text: string;
    try {
      text = decoder.decode(truncated ? bytes.subarray(0, utf8Boundary(bytes, limits.maxReadBytes)) : bytes);
    } catch {
      throw refused(file, 'not UTF-8 text');
    }
    return { path: path.relative(root, real).split(path.sep).join('/'), text, truncated, size: stats.size };
  } finally {
    await handle.close();
  }
}
