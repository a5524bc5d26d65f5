import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { SkillSearchError } from '../../errors.js';
import type { ParsedArgs } from '../args.js';
import { flagError, parseChoice } from '../args.js';
import { line, printJson } from '../context.js';
import type { CliIo } from '../io.js';
import { defaultLibraryDir, requirePath } from '../sources.js';

const ACTIONS = ['add', 'list', 'path'] as const;
const SKILL_FILE = 'SKILL.md';

/** A skill found in a folder given to `library add`: a skill folder, or a loose `.md` file. */
interface Found {
  readonly name: string;
  readonly from: string;
  readonly kind: 'folder' | 'file';
}

/** `dir` itself when it holds a SKILL.md, else its `<skill>/SKILL.md` folders and loose `.md` files. */
function skillsIn(dir: string): Found[] {
  if (existsSync(path.join(dir, SKILL_FILE))) return [{ name: path.basename(dir), from: dir, kind: 'folder' }];
  const found: Found[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    const stats = entry.isSymbolicLink() ? statSync(full, { throwIfNoEntry: false }) : entry;
    if (stats === undefined) continue;
    if (stats.isDirectory() && existsSync(path.join(full, SKILL_FILE))) found.push({ name: entry.name, from: full, kind: 'folder' });
    else if (stats.isFile() && entry.name.toLowerCase().endsWith('.md') && !/^readme\.md$/i.test(entry.name)) {
      found.push({ name: entry.name, from: full, kind: 'file' });
    }
  }
  return found;
}

function libraryDir(args: ParsedArgs, io: CliIo): string {
  const flag = args.values.library;
  const given = Array.isArray(flag) ? flag : typeof flag === 'string' ? [flag] : [];
  if (given.length > 1) throw flagError('library takes one --library DIR');
  return given[0] === undefined ? defaultLibraryDir(io.env) : path.resolve(io.cwd, given[0]);
}

/**
 * `library add`: copies (default), links (`--link`) or moves (`--move`) skills into the
 * library. A name already in the library is skipped, never overwritten.
 */
export async function runLibrary(args: ParsedArgs, io: CliIo): Promise<number> {
  const action = parseChoice('action', args.positionals[0] ?? '', ACTIONS);
  const library = libraryDir(args, io);
  if (action === 'path') {
    line(io.stdout, library);
    return 0;
  }
  if (action === 'list') {
    const skills = existsSync(library) ? skillsIn(library) : [];
    if (args.values.json === true) printJson(io, { library, skills: skills.map(({ name, from }) => ({ name, path: from })) });
    else for (const skill of skills) line(io.stdout, `${skill.name}  ${skill.from}`);
    if (skills.length === 0 && args.values.json !== true) line(io.stderr, `skill-search: the library ${library} is empty; add skills with 'skill-search library add <dir>'`);
    return 0;
  }
  const sources = args.positionals.slice(1);
  if (sources.length === 0) throw flagError("'library add' needs a folder of skills (or one skill folder)");
  if (args.values.link === true && args.values.move === true) throw flagError('--link and --move cannot be used together');
  const mode = args.values.link === true ? 'link' : args.values.move === true ? 'move' : 'copy';
  mkdirSync(library, { recursive: true });
  const added: string[] = [];
  const skipped: string[] = [];
  for (const raw of sources) {
    const dir = requirePath('library add', raw, 'directory', io.cwd);
    if (path.resolve(dir) === path.resolve(library)) throw new SkillSearchError('BAD_FILE', `'${raw}' is the library itself`);
    const found = skillsIn(dir);
    if (found.length === 0) line(io.stderr, `skill-search: no skills in '${raw}' (expected <skill>/SKILL.md folders or .md files)`);
    for (const skill of found) {
      const target = path.join(library, skill.name);
      if (lstatSync(target, { throwIfNoEntry: false }) !== undefined) {
        skipped.push(skill.name);
        continue;
      }
      if (mode === 'link') symlinkSync(skill.from, target, skill.kind === 'folder' ? 'dir' : 'file');
      else if (mode === 'copy') cpSync(skill.from, target, { recursive: true, dereference: true });
      else {
        try {
          renameSync(skill.from, target);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
          cpSync(skill.from, target, { recursive: true, dereference: true });
          rmSync(skill.from, { recursive: true, force: true });
        }
      }
      added.push(skill.name);
    }
  }
  if (args.values.json === true) printJson(io, { library, mode, added, skipped });
  else {
    line(io.stdout, `${mode === 'copy' ? 'Copied' : mode === 'link' ? 'Linked' : 'Moved'} ${added.length} skill${added.length === 1 ? '' : 's'} into ${library}.`);
    if (skipped.length > 0) line(io.stdout, `Skipped ${skipped.length} already in the library: ${skipped.join(', ')}`);
  }
  return 0;
}
