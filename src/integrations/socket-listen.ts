/** The search server's socket file: listened on, replaced when a killed server left it, removed when the process exits without closing. */
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { once } from 'node:events';
import net from 'node:net';
import path from 'node:path';
import { SkillSearchError, errorMessage } from '../errors.js';
import { currentUid, lstatOrUndefined, prepareSocketDir } from './socket-trust.js';

/** How long a stale-socket probe waits for a live server to accept. */
const PROBE_TIMEOUT_MS = 300;

/** Listens `server` on `where`, replacing a socket file a killed server of this user left; anything else there is an error. */
export async function listenOnSocket(server: net.Server, where: string): Promise<void> {
  const isPipe = process.platform === 'win32';
  if (!isPipe) prepareSocketDir(path.dirname(where));
  try {
    await tryListen(server, where);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || isPipe) throw listenError(where, error);
    await replaceStaleSocket(where);
    await tryListen(server, where).catch((retry: unknown) => {
      throw listenError(where, retry);
    });
  }
  if (isPipe) return;
  // Searches reveal skill names and descriptions: only this user may connect.
  try {
    chmodSync(where, 0o600);
  } catch {
    // A file system without modes (some mounts): the folder's permissions still apply.
  }
}

/** Listens once; rejects with the server's error (`events.once` takes that listener off again). */
async function tryListen(server: net.Server, where: string): Promise<void> {
  const listening = once(server, 'listening');
  server.listen(where);
  await listening;
}

async function replaceStaleSocket(where: string): Promise<void> {
  const stats = lstatOrUndefined(where);
  if (stats === undefined) return;
  if (!stats.isSocket()) throw new SkillSearchError('BAD_FILE', `${where} exists and is not a socket; remove it or choose another --index-dir`);
  const uid = currentUid();
  if (uid !== undefined && stats.uid !== uid) {
    throw new SkillSearchError(
      'UNTRUSTED',
      `${where} is a socket of uid ${stats.uid}, not of this user (uid ${uid}); not replacing it (choose another --index-dir)`,
    );
  }
  if (await answers(where)) throw new SkillSearchError('BAD_OPTION', `another skill-search server is already serving ${where}`);
  try {
    unlinkSync(where);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw listenError(where, error);
  }
}

/** Last resort when the process exits without the server's `close()` (a forced exit): no stale file left behind. */
export function unlinkOwnSocket(where: string): void {
  try {
    const stats = lstatSync(where);
    const uid = currentUid();
    if (stats.isSocket() && (uid === undefined || stats.uid === uid)) unlinkSync(where);
  } catch {
    // Already gone.
  }
}

function listenError(where: string, error: unknown): SkillSearchError {
  if (error instanceof SkillSearchError) return error;
  return new SkillSearchError('INTERNAL', `cannot listen on ${where}: ${errorMessage(error)}`, { cause: error });
}

/** Whether something accepts connections on `where` (a live server, not a stale file). */
function answers(where: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(where);
    const done = (live: boolean) => {
      clearTimeout(timer);
      probe.destroy();
      resolve(live);
    };
    // A server too busy to accept within the probe is still alive: never take its path.
    const timer = setTimeout(() => done(true), PROBE_TIMEOUT_MS);
    probe.once('connect', () => done(true));
    probe.once('error', (error: NodeJS.ErrnoException) => done(error.code !== 'ECONNREFUSED' && error.code !== 'ENOENT'));
  });
}
