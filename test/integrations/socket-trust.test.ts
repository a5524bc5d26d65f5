import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, symlinkSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SkillSocketClient } from '../../src/integrations/socket-client.js';
import { socketPathFor } from '../../src/integrations/socket-protocol.js';
import { SkillSocketServer } from '../../src/integrations/socket-server.js';
import { ensurePrivateDir, privateSocketDirs, untrustedSocketReason } from '../../src/integrations/socket-trust.js';
import { useTempDirs } from '../support/temp-dirs.js';

const tempDir = useTempDirs('trust');
const uid = process.getuid!();
const isRoot = uid === 0;
/** `nobody` on most systems: an account that is surely not the one running the tests. */
const OTHER_UID = 65534;
const searcher = { search: async () => [] };
const serve = (where: string) => SkillSocketServer.listen({ path: where, searcher, size: () => 0, version: 'test' });

// Each test gets its own private runtime folder, so the shared `/tmp/skill-search-<uid>` of
// real servers on this machine is never touched.
let savedRuntime: string | undefined;
let runtime: string;
beforeEach(() => {
  savedRuntime = process.env.XDG_RUNTIME_DIR;
  runtime = tempDir();
  process.env.XDG_RUNTIME_DIR = runtime;
});
afterEach(() => {
  if (savedRuntime === undefined) delete process.env.XDG_RUNTIME_DIR;
  else process.env.XDG_RUNTIME_DIR = savedRuntime;
});

const longIndexDir = () => path.join(tempDir(), 'x'.repeat(110));

describe('socketPathFor: the fallback for a long index path is private', () => {
  it('lives in $XDG_RUNTIME_DIR/skill-search when that folder is private, else in <tmpdir>/skill-search-<uid>', () => {
    const deep = path.join('/tmp', 'x'.repeat(120));
    expect(socketPathFor(deep)).toMatch(new RegExp(`^${runtime}/skill-search/[0-9a-f]{16}\\.sock$`));
    chmodSync(runtime, 0o755);
    expect(socketPathFor(deep)).toMatch(new RegExp(`^${os.tmpdir()}/skill-search-${uid}/[0-9a-f]{16}\\.sock$`));
    delete process.env.XDG_RUNTIME_DIR;
    expect(privateSocketDirs()[0]).toBe(path.join(os.tmpdir(), `skill-search-${uid}`));
  });

  it('a server on a long index path creates the folder 0700 and clients reach it', async () => {
    const where = socketPathFor(longIndexDir());
    const server = await serve(where);
    try {
      const folder = lstatSync(path.dirname(where));
      expect(folder.mode & 0o777).toBe(0o700);
      expect(folder.uid).toBe(uid);
      const client = await SkillSocketClient.connect(where);
      expect((await client.ping()).pong).toBe(true);
      client.close();
    } finally {
      await server.close();
    }
  });
});

describe('ensurePrivateDir', () => {
  it('creates a missing folder with mode 0700', () => {
    const dir = path.join(tempDir(), 'sockets');
    ensurePrivateDir(dir);
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
    ensurePrivateDir(dir);
  });

  it('refuses a folder with a wider mode, a symbolic link, or a folder of another user', () => {
    const base = tempDir();
    const open = path.join(base, 'open');
    mkdirSync(open, { mode: 0o755 });
    chmodSync(open, 0o755);
    expect(() => ensurePrivateDir(open)).toThrow(
      `skill-search: refusing the socket folder ${open}: it has mode 0755, not 0700; remove it, or use a shorter --index-dir`,
    );
    const link = path.join(base, 'link');
    const target = path.join(base, 'target');
    mkdirSync(target, { mode: 0o700 });
    symlinkSync(target, link);
    expect(() => ensurePrivateDir(link)).toThrow(`skill-search: refusing the socket folder ${link}: it is a symbolic link`);
    expect(() => ensurePrivateDir(target, 12345)).toThrow(`it is owned by uid ${uid}, not by this user (uid 12345)`);
  });

  it.runIf(isRoot)('a private folder another user made first is refused: the server does not listen there', async () => {
    const where = socketPathFor(longIndexDir());
    const planted = path.dirname(where);
    mkdirSync(planted, { mode: 0o700 });
    chownSync(planted, OTHER_UID, OTHER_UID);
    await expect(serve(where)).rejects.toThrow(
      `skill-search: refusing the socket folder ${planted}: it is owned by uid ${OTHER_UID}, not by this user (uid 0)`,
    );
    expect(existsSync(where)).toBe(false);
  });
});

describe('a client sends nothing to a socket it does not trust', () => {
  it('refuses a socket that belongs to another user (uid as the client sees it)', async () => {
    const where = socketPathFor(tempDir());
    const server = await serve(where);
    try {
      await expect(SkillSocketClient.connect(where, { uid: 12345 })).rejects.toMatchObject({
        code: 'UNTRUSTED',
        message: `skill-search: not using the search socket ${where}: it is owned by uid ${uid}, not by this user (uid 12345)`,
      });
      expect(server.stats.connections).toBe(0);
    } finally {
      await server.close();
    }
  });

  it.runIf(isRoot)('refuses a listener whose socket file another user owns, before connecting', async () => {
    const where = socketPathFor(tempDir());
    let accepted = 0;
    const foreign = net.createServer((socket) => {
      accepted += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => foreign.listen(where, resolve));
    chownSync(where, OTHER_UID, OTHER_UID);
    try {
      await expect(SkillSocketClient.connect(where)).rejects.toThrow(
        `not using the search socket ${where}: it is owned by uid ${OTHER_UID}, not by this user (uid 0)`,
      );
      expect(accepted).toBe(0);
    } finally {
      await new Promise((resolve) => foreign.close(resolve));
    }
  });

  it('refuses a socket in a folder every user may write to', async () => {
    const dir = tempDir();
    const where = socketPathFor(dir);
    const server = await serve(where);
    try {
      chmodSync(dir, 0o777);
      expect(untrustedSocketReason(where)).toBe(`is in the folder ${dir}, which is writable by every user (mode 0777)`);
      // One sentence: "it is in the folder …", not "it its folder …".
      await expect(SkillSocketClient.connect(where)).rejects.toThrow(
        `skill-search: not using the search socket ${where}: it is in the folder ${dir}, which is writable by every user (mode 0777)`,
      );
      chmodSync(dir, 0o700);
    } finally {
      await server.close();
    }
  });

  it('says nothing about a socket that is not there (connecting fails as for any missing server)', () => {
    expect(untrustedSocketReason(path.join(tempDir(), 'server.sock'))).toBeUndefined();
  });
});

describe('watch never replaces a socket of another user', () => {
  it.runIf(isRoot)('a dead socket another user owns is left in place and reported', async () => {
    const where = socketPathFor(tempDir());
    // A killed server leaves its socket file behind.
    const child = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(where)}, () => console.log('up'))`]);
    await new Promise((resolve) => child.stdout.once('data', resolve));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    chownSync(where, OTHER_UID, OTHER_UID);
    await expect(serve(where)).rejects.toThrow(
      `skill-search: ${where} is a socket of uid ${OTHER_UID}, not of this user (uid 0); not replacing it (choose another --index-dir)`,
    );
    expect(lstatSync(where).uid).toBe(OTHER_UID);
  });
});
