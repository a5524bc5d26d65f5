/**
 * Whom a Unix socket path may be trusted with (its creator reads every request): a client
 * connects only to a socket of the current user in a folder no other user can write to, and
 * the fallback folder is private (0700, ours, not a link). No `uid` (Windows): every check passes.
 */
import { lstatSync, mkdirSync, statSync, type Stats } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SkillSearchError } from '../errors.js';

/** The uid sockets and their folders must belong to; undefined on Windows. */
export function currentUid(): number | undefined {
  return process.getuid?.();
}

const PRIVATE_MODE = 0o700;

/** Why `dir` is not a private folder of `uid` (a real folder, owned by it, mode 0700), or undefined. */
function privateDirProblem(stats: Stats, uid: number | undefined): string | undefined {
  if (stats.isSymbolicLink()) return 'is a symbolic link';
  if (!stats.isDirectory()) return 'is not a folder';
  if (uid === undefined) return undefined;
  if (stats.uid !== uid) return `is owned by uid ${stats.uid}, not by this user (uid ${uid})`;
  if ((stats.mode & 0o777) !== PRIVATE_MODE) return `has mode ${octal(stats.mode)}, not 0700`;
  return undefined;
}

function octal(mode: number): string {
  return `0${(mode & 0o7777).toString(8)}`;
}

/** The link's own metadata, or undefined. */
export function lstatOrUndefined(where: string): Stats | undefined {
  try {
    return lstatSync(where);
  } catch {
    return undefined;
  }
}

/** The folders a socket may fall back to, best first: `$XDG_RUNTIME_DIR/skill-search` when that is private to us, `<tmpdir>/skill-search-<uid>`, `/tmp/skill-search-<uid>`. */
export function privateSocketDirs(env: NodeJS.ProcessEnv = process.env, uid: number | undefined = currentUid()): string[] {
  const user = uid === undefined ? 'user' : String(uid);
  const dirs: string[] = [];
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime !== undefined && path.isAbsolute(runtime)) {
    const stats = lstatOrUndefined(runtime);
    if (stats !== undefined && privateDirProblem(stats, uid) === undefined) dirs.push(path.join(runtime, 'skill-search'));
  }
  dirs.push(path.join(os.tmpdir(), `skill-search-${user}`), path.join('/tmp', `skill-search-${user}`));
  return [...new Set(dirs)];
}

function isPrivateSocketDir(dir: string, uid: number | undefined): boolean {
  return privateSocketDirs(process.env, uid).includes(path.resolve(dir));
}

/** Creates `dir` (0700) if missing, and refuses it unless it is a folder (not a link) of `uid` with mode exactly 0700. */
export function ensurePrivateDir(dir: string, uid: number | undefined = currentUid()): void {
  try {
    mkdirSync(dir, { mode: PRIVATE_MODE });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new SkillSearchError('BAD_FILE', `cannot create the socket folder ${dir}: ${(error as Error).message}`, { cause: error });
    }
  }
  const problem = privateDirProblem(lstatSync(dir), uid);
  if (problem !== undefined) {
    throw new SkillSearchError('UNTRUSTED', `refusing the socket folder ${dir}: it ${problem}; remove it, or use a shorter --index-dir`);
  }
}

/** Makes a server socket's folder: a fallback one private, any other (the index folder) one its clients would accept. */
export function prepareSocketDir(dir: string, uid: number | undefined = currentUid()): void {
  if (isPrivateSocketDir(dir, uid)) {
    ensurePrivateDir(dir, uid);
    return;
  }
  mkdirSync(dir, { recursive: true, mode: PRIVATE_MODE });
  const problem = socketDirProblem(dir, uid);
  if (problem !== undefined) throw new SkillSearchError('UNTRUSTED', `refusing to listen in ${dir}: it ${problem}`);
}

function socketDirProblem(dir: string, uid: number | undefined): string | undefined {
  if (uid === undefined) return undefined;
  if (isPrivateSocketDir(dir, uid)) {
    const stats = lstatOrUndefined(dir);
    return stats === undefined ? undefined : privateDirProblem(stats, uid);
  }
  let stats: Stats;
  try {
    // The index folder may be reached through a link the user made; its target is what counts.
    stats = statSync(dir);
  } catch {
    return undefined;
  }
  // Root owns the folders above every user's; a folder root made is as safe as our own.
  if (stats.uid !== uid && stats.uid !== 0) return `is owned by uid ${stats.uid}, not by this user (uid ${uid})`;
  // Group write is left alone: with per-user groups (umask 002) it is every folder's mode.
  if ((stats.mode & 0o002) !== 0) return `is writable by every user (mode ${octal(stats.mode)})`;
  return undefined;
}

/** Why the socket at `socketPath` must not be sent anything; undefined when it may, or nothing is there. Never connects. */
export function untrustedSocketReason(socketPath: string, uid: number | undefined = currentUid()): string | undefined {
  if (uid === undefined) return undefined;
  const dir = path.dirname(socketPath);
  const dirProblem = socketDirProblem(dir, uid);
  if (dirProblem !== undefined) return `is in the folder ${dir}, which ${dirProblem}`;
  const stats = lstatOrUndefined(socketPath);
  if (stats === undefined) return undefined;
  if (stats.isSymbolicLink()) return 'is a symbolic link';
  if (!stats.isSocket()) return 'is not a socket';
  if (stats.uid !== uid) return `is owned by uid ${stats.uid}, not by this user (uid ${uid})`;
  return undefined;
}
