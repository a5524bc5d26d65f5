import { execFile } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { SkillSearchError } from '../../errors.js';
import { type ParsedArgs, flagError, parsePositionalChoice, parsePositiveInt } from '../args.js';
import { LibraryStage } from './library-copy.js';
import { line, printJson } from '../context.js';
import type { CliIo } from '../io.js';
import { checkedPath, defaultLibraryDir } from '../sources.js';
import { escapeForTerminal } from '../../util/escape.js';
import { plural } from '../../util/text.js';

const ACTIONS = ['add', 'list', 'path', 'remove'] as const;
const SKILL_FILE = 'SKILL.md';
/** `--clone-timeout` default: a clone that has not finished by then is stopped. */
const DEFAULT_CLONE_TIMEOUT_S = 120;
/** Warnings printed one per line; the rest are counted. */
const MAX_WARNING_LINES = 20;

/** A skill found in a folder given to `library add`: a skill folder, or a loose `.md` file. */
interface Found {
  readonly name: string;
  readonly from: string;
  readonly kind: 'folder' | 'file';
}

/** `dir` itself when it holds a SKILL.md, else its `<skill>/SKILL.md` folders and loose `.md` files, else those of `dir/skills/`. */
function skillsIn(dir: string, rootName = path.basename(dir)): Found[] {
  if (existsSync(path.join(dir, SKILL_FILE))) return [{ name: rootName, from: dir, kind: 'folder' }];
  const found = skillsDirectlyIn(dir);
  const nested = path.join(dir, 'skills');
  return found.some((skill) => skill.kind === 'folder') || !existsSync(nested) ? found : skillsDirectlyIn(nested);
}

function skillsDirectlyIn(dir: string): Found[] {
  const found: Found[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    const stats = entry.isSymbolicLink() ? followed(full) : entry;
    if (stats === undefined) continue;
    if (stats.isDirectory() && existsSync(path.join(full, SKILL_FILE))) found.push({ name: entry.name, from: full, kind: 'folder' });
    else if (stats.isFile() && entry.name.toLowerCase().endsWith('.md') && !/^readme\.md$/i.test(entry.name)) {
      found.push({ name: entry.name, from: full, kind: 'file' });
    }
  }
  return found;
}

/** A symbolic link's target's stats; undefined when broken or a loop. */
function followed(file: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

/** `https://…`, `ssh://…`, `file://…`, `git@host:…` or anything ending in `.git`: a repository to clone. */
function isGitUrl(raw: string): boolean {
  return /^(?:https?|ssh|git|file):\/\//.test(raw) || /^[\w.-]+@[\w.-]+:/.test(raw) || raw.endsWith('.git');
}

function repoName(url: string): string {
  const last = url
    .replace(/[/\\]+$/, '')
    .split(/[/:\\]/)
    .pop()!;
  return last.replace(/\.git$/, '') || 'skill';
}

/** A shallow clone of `url` in a temp folder (the caller removes it), stopped after `timeoutS`. */
async function cloneToTemp(url: string, timeoutS: number): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'skill-search-clone-'));
  const options = { timeout: timeoutS * 1000, killSignal: 'SIGKILL' as const, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } };
  try {
    await promisify(execFile)('git', ['clone', '--quiet', '--depth', '1', '--', url, dir], options);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const { killed, stderr, message } = error as { killed?: boolean; stderr?: string; message: string };
    if (killed) throw new SkillSearchError('NETWORK', `cannot clone '${url}': not done within ${timeoutS} s (--clone-timeout)`);
    // git's last line says why (`fatal: repository '…' not found`).
    const why = String(stderr || message).trim();
    throw new SkillSearchError('BAD_FILE', `cannot clone '${url}': ${why.slice(why.lastIndexOf('\n') + 1)}`);
  }
  return dir;
}

/** Renames a skill into the library; false when it is on another file system (then it is copied). */
function movedInPlace(from: string, target: string): boolean {
  try {
    renameSync(from, target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    return false;
  }
}

/** What `library add` looks for in a folder it is given. */
const SKILL_LAYOUT = 'expected <skill>/SKILL.md folders or .md files';

/** One line per skill among `added` that the loader refuses: added all the same, and `validate` reports it until fixed. */
async function unloadable(library: string, added: readonly string[]): Promise<string[]> {
  if (added.length === 0) return [];
  const [{ scanSkillsDir, formatDiagnostic }, { SOURCE_RANKS }] = await Promise.all([import('../../load/index.js'), import('../../load/sources.js')]);
  const scan = await scanSkillsDir(library, { source: 'library', rank: SOURCE_RANKS.library });
  const names = new Set(added);
  return scan.diagnostics
    .filter((d) => d.severity === 'error' && names.has(path.relative(library, d.path).split(path.sep, 1)[0]!))
    .map((d) => `${formatDiagnostic(d)} (added, but it will not load until fixed)`);
}

/**
 * `library path | list | add | remove`: add copies (default), links or moves skills in (a name
 * already there is skipped, never overwritten); remove deletes a skill's folder or file (a
 * linked one: the link only).
 */
export async function runLibrary(args: ParsedArgs, io: CliIo): Promise<number> {
  const action = parsePositionalChoice('library', 'command', args.positionals[0], ACTIONS);
  const given = (args.values.library as string[] | undefined) ?? [];
  if (given.length > 1) throw flagError('library takes one --library DIR');
  const library = given[0] === undefined ? defaultLibraryDir(io.env) : path.resolve(io.cwd, given[0]);
  if (action === 'path') {
    if (args.values.json === true) printJson(io, { library, exists: existsSync(library) });
    else line(io.stdout, library);
    return 0;
  }
  if (action === 'list') {
    const skills = existsSync(library) ? skillsIn(library) : [];
    // The name searches and hooks show, where the skill's frontmatter names it otherwise than its folder.
    const renamed = new Map<string, string>();
    for (const [skill, entry] of await skillNames(library)) if (skill !== entry && !renamed.has(entry)) renamed.set(entry, skill);
    if (args.values.json === true) {
      const listed = skills.map(({ name, from }) => ({ name, ...(renamed.has(name) ? { skill: renamed.get(name) } : {}), path: from }));
      return printJson(io, { library, skills: listed });
    }
    for (const skill of skills) {
      const other = renamed.get(skill.name);
      line(io.stdout, `${escapeForTerminal(skill.name)}${other === undefined ? '' : ` (${escapeForTerminal(other)})`}  ${escapeForTerminal(skill.from)}`);
    }
    if (skills.length === 0) line(io.stderr, `skill-search: the library ${library} is empty; add skills with 'skill-search library add <dir>'`);
    return 0;
  }
  if (action === 'remove') return removeSkills(library, args.positionals.slice(1), args.values.json === true, io);
  const sources = args.positionals.slice(1);
  if (sources.length === 0) throw flagError("'library add' needs a folder of skills (or one skill folder)");
  if (args.values.link === true && args.values.move === true) throw flagError('--link and --move cannot be used together');
  const mode = args.values.link === true ? 'link' : args.values.move === true ? 'move' : 'copy';
  const cloneTimeout =
    args.values['clone-timeout'] === undefined ? DEFAULT_CLONE_TIMEOUT_S : parsePositiveInt('clone-timeout', String(args.values['clone-timeout']));
  // Made now for the staging folder inside it; taken away again if this add fails before placing anything.
  const libraryMade = !existsSync(library);
  mkdirSync(library, { recursive: true });
  const added: string[] = [];
  const skipped: string[] = [];
  const clones: string[] = [];
  const empty: string[] = [];
  const stage = new LibraryStage(library);
  const placed: { staged: string; target: string }[] = [];
  const movedAcross: string[] = [];
  try {
    for (const raw of sources) {
      const fromGit = isGitUrl(raw) && !existsSync(path.resolve(io.cwd, raw));
      if (fromGit && mode !== 'copy') throw flagError(`--${mode} needs a folder; '${raw}' is a repository (it is copied)`);
      const dir = fromGit ? await cloneToTemp(raw, cloneTimeout) : checkedPath(`library add '${raw}'`, raw, 'directory', io.cwd);
      if (fromGit) clones.push(dir);
      if (path.resolve(dir) === path.resolve(library)) throw new SkillSearchError('BAD_FILE', `'${raw}' is the library itself`);
      // A repository that is one skill is named after the repository, not the temp folder.
      const found = skillsIn(dir, fromGit ? repoName(raw) : path.basename(dir));
      if (found.length === 0) empty.push(raw);
      // Said at once when others may still hold skills; when none does, the error below says it.
      if (found.length === 0 && sources.length > 1) line(io.stderr, `skill-search: no skills in '${raw}' (${SKILL_LAYOUT})`);
      for (const skill of found) {
        const target = path.join(library, skill.name);
        if (added.includes(skill.name) || lstatSync(target, { throwIfNoEntry: false }) !== undefined) {
          skipped.push(skill.name);
          continue;
        }
        if (mode === 'link') symlinkSync(skill.from, target, skill.kind === 'folder' ? 'dir' : 'file');
        else if (mode === 'copy' || !movedInPlace(skill.from, target)) {
          placed.push({ staged: stage.copy(skill.from, dir, skill.name), target });
          if (mode === 'move') movedAcross.push(skill.from);
        }
        added.push(skill.name);
      }
    }
    if (empty.length === sources.length) {
      const what = sources.length === 1 ? `'${sources[0]}' holds no skill` : 'none of the folders given holds a skill';
      throw new SkillSearchError('BAD_FILE', `library add: ${what} (${SKILL_LAYOUT}); nothing was added`);
    }
    stage.commit(placed);
  } catch (error) {
    stage.discard();
    if (libraryMade) removeIfEmpty(library);
    throw error;
  } finally {
    for (const clone of clones) rmSync(clone, { recursive: true, force: true });
  }
  for (const from of movedAcross) rmSync(from, { recursive: true, force: true });
  for (const warning of stage.warnings.slice(0, MAX_WARNING_LINES)) line(io.stderr, `skill-search: ${warning}`);
  for (const problem of (await unloadable(library, added)).slice(0, MAX_WARNING_LINES)) line(io.stderr, problem);
  if (stage.warnings.length > MAX_WARNING_LINES) line(io.stderr, `skill-search: … and ${stage.warnings.length - MAX_WARNING_LINES} more skipped`);
  if (args.values.json === true) return printJson(io, { library, mode, added, skipped });
  line(io.stdout, `${mode === 'copy' ? 'Copied' : mode === 'link' ? 'Linked' : 'Moved'} ${plural(added.length, 'skill')} into ${library}.`);
  if (skipped.length > 0) {
    const names = skipped.map(escapeForTerminal);
    line(
      io.stdout,
      `Skipped ${skipped.length} already in the library: ${names.join(', ')} (to update: 'skill-search library remove ${names.join(' ')}', then add again)`,
    );
  }
  return 0;
}

/** Removes `dir` when nothing is in it (another process may have added to it meanwhile: then it stays). */
function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty, or already gone
  }
}

/** Each loaded skill's name in `library` → the library entry (folder or loose file) that holds it. */
async function skillNames(library: string): Promise<Map<string, string>> {
  if (!existsSync(library)) return new Map();
  const [{ scanSkillsDir }, { SOURCE_RANKS }] = await Promise.all([import('../../load/index.js'), import('../../load/sources.js')]);
  const scan = await scanSkillsDir(library, { source: 'library', rank: SOURCE_RANKS.library });
  return new Map(scan.skills.map((skill) => [skill.name, path.relative(library, skill.path).split(path.sep, 1)[0]!]));
}

/**
 * `library remove <name>...`: a name is a library entry (`library list`), or the skill's own name as searches show it;
 * every name checked before anything is removed; a link goes, not what it points to.
 */
async function removeSkills(library: string, names: readonly string[], json: boolean, io: CliIo): Promise<number> {
  if (names.length === 0) throw flagError("'library remove' needs the name of a skill in the library ('skill-search library list' shows them)");
  const present = existsSync(library) ? skillsDirectlyIn(library) : [];
  const named = await skillNames(library);
  const entries = names.map((name) => {
    // A link whose source is gone is no skill any more, but still the user's to remove.
    const known =
      present.some((skill) => skill.name === name) ||
      (!name.startsWith('.') && lstatSync(path.join(library, name), { throwIfNoEntry: false })?.isSymbolicLink());
    const entry = path.basename(name) === name && known ? name : named.get(name);
    if (entry === undefined) {
      throw new SkillSearchError('BAD_FILE', `no skill '${escapeForTerminal(name)}' in the library ${library} ('skill-search library list' shows them)`);
    }
    return entry;
  });
  // rmSync removes a symbolic link itself, never its target.
  for (const entry of entries) rmSync(path.join(library, entry), { recursive: true, force: true });
  if (json) return printJson(io, { library, removed: entries });
  line(io.stdout, `Removed ${plural(entries.length, 'skill')} from ${library}: ${entries.map(escapeForTerminal).join(', ')}.`);
  return 0;
}
