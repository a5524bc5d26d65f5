import { statSync, type Dirent, type Stats } from 'node:fs';
import { readdir, realpath } from 'node:fs/promises';
import { basename, join, normalize } from 'node:path';
import type { Diagnostic, LoadedFrom, Skill } from '../types.js';
import { parseSkillFile } from './frontmatter.js';
import { readCodexPolicy } from './codex-policy.js';
import { FOLDER_PROBLEMS } from './format.js';
import { DIGEST_PIECE, childPath, modifiedAtOf, policyFileOf, slotOf, stampFiles, stampPieces, statTextAt, type DirStamp } from './dir-stamp.js';
import { fromFsError, readSkillText } from './read-file.js';
import { DEFAULT_SKILL_LIMITS, buildSkill, diagnostic, type SkillLimits } from './skill.js';
import { ScanMemo, type MemoEntry, type Parsed, type ReadEntry } from './scan-memo.js';
import { isFolder } from '../util/paths.js';

/**
 * `skills`: `DIR/<skill>/SKILL.md` or a loose `DIR/<name>.md`, one level deep. `commands`: legacy `.claude/commands`: every `.md` file
 * at any depth, nested folders namespaced `folder:name` (a folder holding a `SKILL.md` is one skill named by its path).
 */
export type DirLayout = 'skills' | 'commands';

export interface ScanOptions {
  readonly source: LoadedFrom;
  readonly rank: number;
  /** @default 'skills' */
  readonly layout?: DirLayout;
  readonly limits?: SkillLimits;
  /** Prefix every skill name with `namespace:` (plugin skills, as the host names them). */
  readonly namespace?: string;
  /** Name a skill folder's SKILL.md by its folder whatever its frontmatter `name` says (Claude Code's rule for its own folders). */
  readonly folderNames?: boolean;
  /** The folder must exist (`SourceDir.required`): missing or not a folder, it is a diagnostic rather than no skills. */
  readonly required?: boolean;
  /** The `cwd` option, when `dir` is its project folder (`SourceDir.cwd`): a missing `cwd` is a diagnostic naming it. */
  readonly cwd?: string;
  /** The previous scan of the same folder and options: a file whose stat (and its policy file's) did not move is taken from it. */
  readonly memo?: ScanMemo;
  /** {@link statSkillsDir}'s answer for the same folder and options, taken before this scan: the files read are those it found, not listed again. */
  readonly stamped?: DirStamp;
}

export { ScanMemo };

/** What one candidate file gave: its parse and, with a skill, its realpath. */
interface Loaded extends Parsed {
  readonly real?: string;
}

export interface ScanResult {
  /** Good skills in load order (directory entries sorted by name). */
  readonly skills: readonly Skill[];
  readonly diagnostics: readonly Diagnostic[];
  /** `skill.path` → its realpath, for deduplicating files reached through symlinks. */
  readonly realPaths: ReadonlyMap<string, string>;
  /** The files read with their stat before reading ({@link statSkillsDir}'s answer for the same files). */
  readonly stamp: DirStamp;
}

const SKILL_FILE = 'SKILL.md';
/** Deepest nesting followed in a legacy commands tree. */
const MAX_COMMAND_DEPTH = 8;
/** Files read at once; keeps a large tree from exhausting file descriptors. */
const READ_CONCURRENCY = 16;
/** Files modified this recently (ms) when stat'ed are not memoized: rewritten in one timestamp tick (1–2 s on some file systems), their stat may not move. */
export const RACY_MS = 2000;

interface Candidate {
  readonly file: string;
  readonly defaultName: string;
  /** Set for a skill folder's SKILL.md: Codex's policy file is read beside it, and the spec's name rule applies. */
  readonly folder?: string;
  /** A loose `DIR/notes.md`: without a description it is no skill (no fallback to its body). */
  readonly loose?: true;
  /**
   * Its realpath should no link lead to it: its listing folder's realpath and the names below it; undefined when an entry on the
   * way is a link. A folder's SKILL.md may itself be a link: its realpath tells ({@link realOf}).
   */
  readonly plainReal: string | undefined;
}

/**
 * The entries of `dir` a scan follows (links followed: a broken one is reported), each a folder or a regular `.md` file. A `.md`
 * entry that is not a regular file (a FIFO, a device such as a link to /dev/zero, a socket) is never opened, which could hang or
 * never end, but reported as a SKILL.md that is one is. A link is stat'ed on this thread, as the stamp stats every file: no promise per
 * entry of a folder of 24k skills.
 */
function* followed(
  dir: string,
  entries: readonly Dirent[],
  diagnostics: Diagnostic[],
  realDir: string | undefined,
): Generator<{ name: string; full: string; folder: boolean; real: string | undefined }> {
  const base = normalize(dir);
  for (const entry of entries) {
    const full = childPath(base, entry.name);
    let kind: Stats | Dirent = entry;
    try {
      if (entry.isSymbolicLink()) kind = statSync(full);
    } catch (error) {
      const result = fromFsError(full, error);
      if (result.state === 'gone') diagnostics.push(diagnostic('unreadable', full, 'is a broken symbolic link'));
      else if (result.state === 'failed') diagnostics.push(result.diagnostic);
      continue;
    }
    // Its realpath when neither it nor `dir` is reached through a link: its path itself when `dir` is its own realpath (no second string per entry).
    const real = kind !== entry || realDir === undefined ? undefined : realDir === base ? full : childPath(realDir, entry.name);
    if (kind.isDirectory()) yield { name: entry.name, full, folder: true, real };
    else if (!entry.name.toLowerCase().endsWith('.md')) continue;
    else if (kind.isFile()) yield { name: entry.name, full, folder: false, real };
    else {
      const what = kind.isFIFO() ? 'a FIFO' : kind.isCharacterDevice() || kind.isBlockDevice() ? 'a device' : kind.isSocket() ? 'a socket' : 'a special file';
      diagnostics.push(diagnostic('unreadable', full, `is not a regular file (${what}); skipped`));
    }
  }
}

type Expected = Pick<ScanOptions, 'required' | 'cwd'>;

async function listDir(dir: string, diagnostics: Diagnostic[], { required, cwd }: Expected = {}): Promise<Dirent[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.filter(({ name }) => !name.startsWith('.') && name !== 'node_modules').sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (error) {
    const result = fromFsError(dir, error);
    if (result.state === 'failed') diagnostics.push(result.diagnostic);
    else if (required)
      diagnostics.push(
        diagnostic('unreadable', dir, (error as NodeJS.ErrnoException).code === 'ENOTDIR' ? FOLDER_PROBLEMS.notFolder : FOLDER_PROBLEMS.missing),
      );
    else if (cwd !== undefined && !isFolder(cwd)) diagnostics.push(diagnostic('unreadable', cwd, FOLDER_PROBLEMS.missingCwd));
    return [];
  }
}

async function skillsCandidates(dir: string, diagnostics: Diagnostic[], expected: Expected): Promise<Candidate[]> {
  const candidates: Candidate[] = [];
  const entries = await listDir(dir, diagnostics, expected);
  const realDir = entries.length === 0 ? undefined : await realpath(dir).catch(() => undefined);
  for (const { name, full, folder, real } of followed(dir, entries, diagnostics, realDir)) {
    if (folder) {
      const file = childPath(full, SKILL_FILE);
      candidates.push({ file, defaultName: name, folder: full, plainReal: real === full ? file : real && childPath(real, SKILL_FILE) });
    }
    // `DIR/SKILL.md` means DIR is itself one skill folder: name it after the folder.
    else if (name === SKILL_FILE) candidates.push({ file: full, defaultName: basename(dir), folder: normalize(dir), plainReal: real });
    else candidates.push({ file: full, defaultName: name.slice(0, -3), loose: true, plainReal: real });
  }
  return candidates;
}

async function commandCandidates(dir: string, prefix: readonly string[], visited: Set<string>, diagnostics: Diagnostic[]): Promise<Candidate[]> {
  let real: string;
  try {
    real = await realpath(dir);
  } catch (error) {
    const result = fromFsError(dir, error);
    if (result.state === 'failed') diagnostics.push(result.diagnostic);
    return [];
  }
  if (visited.has(real)) {
    diagnostics.push(diagnostic('symlink-loop', dir, 'directory links back to a folder already scanned; skipped'));
    return [];
  }
  visited.add(real);
  const entries = await listDir(dir, diagnostics);
  if (prefix.length > 0 && entries.some((entry) => entry.name === SKILL_FILE)) {
    return [{ file: join(dir, SKILL_FILE), defaultName: prefix.join(':'), folder: normalize(dir), plainReal: childPath(real, SKILL_FILE) }];
  }
  const candidates: Candidate[] = [];
  for (const { name, full, folder, real: plainReal } of followed(dir, entries, diagnostics, real)) {
    if (!folder) candidates.push({ file: full, defaultName: [...prefix, name.slice(0, -3)].join(':'), plainReal });
    else if (prefix.length + 1 >= MAX_COMMAND_DEPTH) {
      diagnostics.push(diagnostic('unreadable', full, `nested deeper than ${MAX_COMMAND_DEPTH} folders; skipped`, 'warning'));
    } else candidates.push(...(await commandCandidates(full, [...prefix, name], visited, diagnostics)));
  }
  return candidates;
}

function namespaced(skill: Skill, namespace: string): Skill {
  const { source, rank, path } = skill;
  return buildSkill({ ...skill, name: `${namespace}:${skill.name}` }, { path, source, rank });
}

export type { DirStamp };

/** Each stamp's candidates and its files modified within {@link RACY_MS}, for a scan that reads by it ({@link ScanOptions.stamped}). */
const stampedFrom = new WeakMap<DirStamp, { readonly candidates: readonly Candidate[]; readonly recent: ReadonlySet<string> }>();

/** The files {@link scanSkillsDir} would read under `dir`, stat'ed, not read: equal to the `stamp` of a scan of them. */
export async function statSkillsDir(dir: string, options: Pick<ScanOptions, 'layout' | 'required' | 'cwd'>): Promise<DirStamp> {
  const diagnostics: Diagnostic[] = [];
  const candidates = await candidatesOf(dir, options, diagnostics);
  const recent = new Set<string>();
  const stamp = stampOf(candidates, diagnostics, recent);
  stampedFrom.set(stamp, { candidates, recent });
  return stamp;
}

/** Each candidate's stat and its policy file's ({@link stampFiles}); files modified within {@link RACY_MS} go in `recent`. */
function stampOf(candidates: readonly Candidate[], listing: readonly Diagnostic[], recent: Set<string>): DirStamp {
  return stampFiles(candidates, listing, Date.now() - RACY_MS, recent);
}

/** The files a scan of `dir` reads ({@link statSkillsDir} and {@link scanSkillsDir} alike). */
function candidatesOf(
  dir: string,
  { layout, required, cwd }: Pick<ScanOptions, 'layout' | 'required' | 'cwd'>,
  diagnostics: Diagnostic[],
): Promise<Candidate[]> {
  return layout === 'commands' ? commandCandidates(dir, [], new Set(), diagnostics) : skillsCandidates(dir, diagnostics, { required, cwd });
}

/** A memo entry's key: the file's stat, its policy file's (`''` for a loose file, which has none; `'null'` when missing), its default name. */
function memoEntryKey(own: string, policy: string, defaultName: string): string {
  return `${own}\0${policy}\0${defaultName}`;
}

/** The stats a memo entry's key holds ({@link memoEntryKey}): the file's, and its policy file's (undefined: a loose file; null: missing). */
export function memoKeyStats(key: string): { readonly own: string; readonly policy: string | null | undefined } {
  const [own, policy] = key.split('\0') as [string, string];
  return { own, policy: policy === '' ? undefined : policy === 'null' ? null : policy };
}

/**
 * Whether a memo entry kept as racy ({@link MemoEntry.racy}) no longer would be at `now`: its file and its policy file were last
 * modified more than {@link RACY_MS} before. A scan then would reuse it once it read it again.
 */
export function settledBy(entry: MemoEntry, now: number): boolean {
  const { own, policy } = memoKeyStats(entry.key);
  return modifiedAtOf(own) < now - RACY_MS && (typeof policy !== 'string' || modifiedAtOf(policy) < now - RACY_MS);
}

/** Loads every skill file under `dir`, never throwing: each problem is a Diagnostic naming its file; a missing directory yields an empty result (a `required` one, a diagnostic too). */
export async function scanSkillsDir(dir: string, options: ScanOptions): Promise<ScanResult> {
  const limits = options.limits ?? DEFAULT_SKILL_LIMITS;
  const taken = options.stamped === undefined ? undefined : stampedFrom.get(options.stamped);
  const diagnostics: Diagnostic[] = taken === undefined ? [] : [...options.stamped!.diagnostics];
  const candidates = taken?.candidates ?? (await candidatesOf(dir, options, diagnostics));
  const memo = options.memo;
  const ownRecent = new Set<string>();
  // Taken before anything is read: a file written during the scan leaves a stamp that no longer matches.
  const stamp = taken === undefined ? stampOf(candidates, diagnostics, ownRecent) : options.stamped!;
  const recent = taken?.recent ?? ownRecent;
  const memoFiles = memo?.entries();
  const pieces = memo === undefined ? undefined : stampPieces(stamp);
  // A file in a piece of the stamp whose digest the memo's entries were made under has the stat its entry holds.
  const samePiece = (index: number): boolean => {
    const piece = Math.floor(index / DIGEST_PIECE);
    return memo!.pieces[piece] !== undefined && memo!.pieces[piece] === pieces![piece];
  };

  const results: Loaded[] = new Array(candidates.length);
  const memoKey = (index: number) => memoKeyAt(stamp, candidates, recent, index);
  const fresh = new Map<string, MemoEntry>();
  const read = new Map<string, ReadEntry>();
  const counts = { reused: 0, read: 0 };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < candidates.length) {
      const index = next++;
      const candidate = candidates[index]!;
      const kept = memoFiles?.get(candidate.file);
      const unmoved = kept !== undefined && !kept.racy && samePiece(index);
      const key = memo === undefined || unmoved ? undefined : memoKey(index);
      if (kept !== undefined && !kept.racy && (unmoved || (key !== undefined && !key.racy && kept.key === key.key))) {
        counts.reused += 1;
        // Awaited only when the system is asked (a link on the way): most files take their listing's path without a promise.
        const real = kept.parsed.skill === undefined ? undefined : realOf(candidate, kept.plain);
        const { skill, diagnostics: problems } = kept.parsed;
        results[index] = real === undefined ? kept.parsed : { skill, diagnostics: problems, real: typeof real === 'string' ? real : await real };
        fresh.set(candidate.file, kept);
        continue;
      }
      counts.read += 1;
      const loaded = await loadCandidate(candidate, options, limits);
      results[index] = loaded;
      const entry = { parsed: loaded, plain: loaded.real === candidate.plainReal };
      read.set(candidate.file, { ...entry, key: key?.key });
      if (key !== undefined) fresh.set(candidate.file, { ...key, ...entry });
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, candidates.length) }, worker));
  memo?.update(fresh, { pieces: pieces!, files: stamp.files }, counts, read);

  const skills: Skill[] = [];
  const realPaths = new Map<string, string>();
  const perFile: Diagnostic[] = [];
  for (const { skill, real, diagnostics: problems } of results) {
    perFile.push(...problems);
    if (skill === undefined) continue;
    skills.push(skill);
    realPaths.set(skill.path, real ?? skill.path);
  }
  return { skills, diagnostics: [...diagnostics, ...perFile], realPaths, stamp };
}

/** Candidate `index`'s memo key under `stamp`, and whether it is racy; undefined with no file (a folder without SKILL.md) or an unreadable stat. */
function memoKeyAt(stamp: DirStamp, candidates: readonly Candidate[], recent: ReadonlySet<string>, index: number): { key: string; racy: boolean } | undefined {
  const candidate = candidates[index]!;
  const own = statTextAt(stamp, slotOf(index));
  if (own === null || own === undefined || own.startsWith('error:')) return undefined;
  const policyFile = candidate.folder === undefined ? undefined : policyFileOf(candidate.folder);
  const policy = policyFile === undefined ? '' : String(statTextAt(stamp, slotOf(index) + 1));
  // One that may not tell the next write apart is read again by every scan ({@link MemoEntry.racy}).
  const racy = recent.has(candidate.file) || (policyFile !== undefined && recent.has(policyFile));
  return { key: memoEntryKey(own, policy, candidate.defaultName), racy };
}

/** A file whose stat moved from its kept memo entry's, read again ({@link movedFiles}). */
export interface MovedFile {
  readonly file: string;
  /** Its entry in the kept memo. */
  readonly old: MemoEntry;
  /** Its parse now, whether its realpath is its listing's path, and its key (undefined: no stat now). */
  readonly now: ReadEntry;
}

/**
 * The files of a {@link statSkillsDir} stamp whose stat moved from the kept memo's entry, each read again, reading of the memo only
 * the pieces whose digest moved: what a folder delta is told from without scanning the folder. Undefined when only a scan can tell:
 * no memo kept, another number of files, a file that came or went in a moved piece (the pieces after it shift), or a piece unreadable.
 */
export async function movedFiles(stamp: DirStamp, memo: ScanMemo, options: ScanOptions): Promise<MovedFile[] | undefined> {
  const taken = stampedFrom.get(stamp);
  // No file to read (a folder missing or empty): none moved; a base with files there has another stamp.
  if (stamp.files.length === 0) return [];
  const head = memo.keptPieces();
  if (taken === undefined || head === undefined || head.files !== stamp.files.length) return undefined;
  const { candidates, recent } = taken;
  const pieces = stampPieces(stamp);
  const moved: { candidate: Candidate; old: MemoEntry; key: string | undefined }[] = [];
  for (let piece = 0; piece < pieces.length; piece += 1) {
    if (pieces[piece] === head.pieces[piece]) continue;
    const entries = memo.keptPiece(piece, head.pieces[piece] ?? '');
    if (entries === undefined) return undefined;
    let held = 0;
    for (let index = piece * DIGEST_PIECE; index < Math.min(candidates.length, (piece + 1) * DIGEST_PIECE); index += 1) {
      const candidate = candidates[index]!;
      const old = entries.get(candidate.file);
      const key = memoKeyAt(stamp, candidates, recent, index)?.key;
      // A file where the memo has none: a SKILL.md put in a folder (or one whose stat failed then), which only a scan tells.
      if (old === undefined) {
        if (key !== undefined) return undefined;
        continue;
      }
      held += 1;
      if (key !== old.key) moved.push({ candidate, old, key });
    }
    // An entry of a file no longer in this piece: a folder renamed, or one removed as another came.
    if (held !== entries.size) return undefined;
  }
  const limits = options.limits ?? DEFAULT_SKILL_LIMITS;
  return Promise.all(
    moved.map(async ({ candidate, old, key }) => {
      const parsed = await loadCandidate(candidate, options, limits);
      return { file: candidate.file, old, now: { parsed, plain: parsed.real === candidate.plainReal, key } };
    }),
  );
}

/**
 * A memoized file's realpath without asking the system when it was the path its listing gave (`plain`) and no link leads there
 * now: the file's stat, which its key holds, moves when it is replaced by a link (the unlink changes the old file's ctime).
 */
function realOf(candidate: Candidate, plain: boolean): string | Promise<string> {
  if (plain && candidate.plainReal !== undefined) return candidate.plainReal;
  return realpath(candidate.file).catch(() => candidate.file);
}

/** Reads and parses one candidate file (and its Codex policy file); never throws. */
async function loadCandidate(candidate: Candidate, options: ScanOptions, limits: SkillLimits): Promise<Loaded> {
  const read = await readSkillText(candidate.file, limits.maxBodyBytes);
  // A folder without SKILL.md is not a skill; a loose file that vanished mid-scan is simply gone.
  if (read.state === 'gone') return { skill: undefined, diagnostics: [] };
  if (read.state === 'failed') return { skill: undefined, diagnostics: [read.diagnostic] };
  const diagnostics: Diagnostic[] = [];
  const policy = candidate.folder === undefined ? undefined : await readCodexPolicy(policyFileOf(candidate.folder));
  if (policy?.diagnostic !== undefined) diagnostics.push(policy.diagnostic);
  const parsed = parseSkillFile(read.text, {
    path: candidate.file,
    source: options.source,
    rank: options.rank,
    defaultName: candidate.defaultName,
    limits,
    truncated: read.truncated,
    specFolder: (options.layout ?? 'skills') === 'skills' && candidate.folder !== undefined ? basename(candidate.folder) : undefined,
    codexPolicy: policy?.policy,
    nameFromFolder: options.folderNames === true && candidate.folder !== undefined,
    describeFromBody: candidate.loose !== true,
  });
  diagnostics.push(...parsed.diagnostics);
  if (parsed.skill === undefined) return { skill: undefined, diagnostics };
  const real = await realOf(candidate, false);
  return { skill: options.namespace === undefined ? parsed.skill : namespaced(parsed.skill, options.namespace), real, diagnostics };
}
