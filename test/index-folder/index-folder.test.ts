import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendLog, readLog } from '../../src/index-folder/delta-log.js';
import { IndexFolder, MANIFEST_FILE } from '../../src/index-folder/index-folder.js';
import { useTempDirs } from '../support/temp-dirs.js';

const tempDir = useTempDirs('index-folder');

/** A folder with artefact `alpha` committed, its file's times then moved (as a copy would). */
function folderWithMovedStamp(): { dir: string; folder: IndexFolder; file: string; later: Date } {
  const dir = tempDir();
  const folder = IndexFolder.open(dir);
  folder.commit([folder.write('alpha', Buffer.from('payload'), { format: 1 })]);
  const file = folder.path(folder.entry('alpha')!.file);
  const later = new Date(Date.now() + 5000);
  utimesSync(file, later, later);
  return { dir, folder, file, later };
}

describe('IndexFolder', () => {
  it('names each artefact by its content, checks it on read, and keeps what another writer committed', () => {
    const dir = tempDir();
    const first = IndexFolder.open(dir);
    const second = IndexFolder.open(dir);
    first.commit([first.write('alpha', Buffer.from('one'), { format: 3 })], { model: 'm', dimensions: 4 });
    second.commit([second.write('beta', Buffer.from('two'), { format: 1 })]);
    const reopened = IndexFolder.open(dir);
    expect([reopened.model, reopened.dimensions]).toEqual(['m', 4]);
    expect(reopened.entry('alpha')).toMatchObject({ file: expect.stringMatching(/^alpha-[0-9a-f]{16}\.bin$/), format: 3, size: 3 });
    const alpha = reopened.read('alpha', 3);
    expect('bytes' in alpha && alpha.bytes.toString()).toBe('one');
    expect(reopened.read('beta', 2)).toEqual({ reason: 'beta format 1 ≠ 2' });
    expect(reopened.read('gamma', 1)).toEqual({ reason: 'no gamma in index.json' });
    expect(statSync(join(dir, MANIFEST_FILE)).mode & 0o777).toBe(0o600);
  });

  it('hashes a file whose stamp moved, and reports one whose bytes changed', () => {
    const { dir, folder, file } = folderWithMovedStamp();
    expect('bytes' in IndexFolder.open(dir).read('alpha', 1)).toBe(true);
    writeFileSync(file, 'paylo4d');
    expect(IndexFolder.open(dir).read('alpha', 1)).toEqual({ reason: `alpha file ${folder.entry('alpha')!.file} fails its checksum` });
  });

  it('records the moved stamp of a file it found intact, so the next open trusts it without hashing', () => {
    const { dir, file, later } = folderWithMovedStamp();
    const reader = IndexFolder.open(dir);
    expect('bytes' in reader.read('alpha', 1)).toBe(true);
    const { size, mtimeMs, ino } = statSync(file);
    expect(reader.entry('alpha')!.stamp).toEqual({ size, mtimeMs, ino });
    expect(IndexFolder.open(dir).entry('alpha')!.stamp).toEqual({ size, mtimeMs, ino });
    // A file whose bytes do not hash right keeps failing: its new stamp is never recorded.
    const damaged = folderWithMovedStamp();
    writeFileSync(damaged.file, 'paylo4d');
    utimesSync(damaged.file, damaged.later, damaged.later);
    const failing = { reason: `alpha file ${damaged.folder.entry('alpha')!.file} fails its checksum` };
    expect(IndexFolder.open(damaged.dir).read('alpha', 1)).toEqual(failing);
    expect(IndexFolder.open(damaged.dir).read('alpha', 1)).toEqual(failing);
    // The stamp vouches for the file from now on: bytes changed in place, size and times kept, go unseen.
    writeFileSync(file, 'paylo4d');
    utimesSync(file, later, later);
    expect('bytes' in IndexFolder.open(dir).read('alpha', 1)).toBe(true);
  });

  it('reads on the thread pool with the same checks (readAsync)', async () => {
    const dir = tempDir();
    const folder = IndexFolder.open(dir);
    folder.commit([folder.write('alpha', Buffer.from('payload'), { format: 1 })]);
    const read = await IndexFolder.open(dir).readAsync('alpha', 1);
    expect('bytes' in read && read.bytes.toString()).toBe('payload');
    expect(await folder.readAsync('alpha', 2)).toEqual({ reason: 'alpha format 1 ≠ 2' });
    const file = folder.path(folder.entry('alpha')!.file);
    writeFileSync(file, 'payload, longer');
    expect(await IndexFolder.open(dir).readAsync('alpha', 1)).toEqual({ reason: `alpha file ${folder.entry('alpha')!.file} fails its checksum` });
  });

  it('removes the superseded file and log, and files of the old layout the new artefact replaces', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'lexical.bin'), 'old');
    writeFileSync(join(dir, 'lexical.bin.stamp'), 'old');
    writeFileSync(join(dir, 'vectors.json'), 'old');
    const folder = IndexFolder.open(dir);
    expect([...folder.legacy].sort()).toEqual(['lexical.bin', 'lexical.bin.stamp', 'vectors.json']);
    folder.commit([folder.write('lexical', Buffer.from('v1'), { format: 1 })]);
    const first = folder.entry('lexical')!;
    folder.appendLog('lexical', Buffer.from('change'));
    folder.commit([folder.write('lexical', Buffer.from('v2'), { format: 1 })]);
    expect(readdirSync(dir).sort()).toEqual([MANIFEST_FILE, folder.entry('lexical')!.file, 'vectors.json'].sort());
    expect(existsSync(folder.path(first.log))).toBe(false);
  });
  it('discards one artefact (file, log and entry), keeping what another writer committed and writing nothing for a name it lacks', () => {
    const dir = tempDir();
    const first = IndexFolder.open(dir);
    const second = IndexFolder.open(dir);
    first.commit([first.write('alpha', Buffer.from('one'), { format: 1 })], { model: 'm' });
    first.appendLog('alpha', Buffer.from('change'));
    second.commit([second.write('beta', Buffer.from('two'), { format: 1 })]);
    const alpha = first.entry('alpha')!;
    first.discard('alpha');
    expect(existsSync(first.path(alpha.file)) || existsSync(first.path(alpha.log))).toBe(false);
    const reopened = IndexFolder.open(dir);
    expect([reopened.entry('alpha'), reopened.model]).toEqual([undefined, 'm']);
    expect('bytes' in reopened.read('beta', 1)).toBe(true);
    const manifest = readFileSync(join(dir, MANIFEST_FILE), 'utf8');
    first.discard('gamma');
    expect(readFileSync(join(dir, MANIFEST_FILE), 'utf8')).toBe(manifest);
  });

  it('discards from the manifest it read when the one on disk has become unreadable, keeping the other artefacts', () => {
    const dir = tempDir();
    const folder = IndexFolder.open(dir);
    folder.commit([folder.write('alpha', Buffer.from('one'), { format: 1 }), folder.write('beta', Buffer.from('two'), { format: 1 })]);
    const alpha = folder.entry('alpha')!;
    writeFileSync(join(dir, MANIFEST_FILE), '{ torn');
    folder.discard('alpha');
    expect(existsSync(folder.path(alpha.file))).toBe(false);
    const reopened = IndexFolder.open(dir);
    expect(reopened.entry('alpha')).toBeUndefined();
    expect('bytes' in reopened.read('beta', 1)).toBe(true);
  });

  it('keeps files of the old layout, however old, until the artefact that replaces them is written', () => {
    const dir = tempDir();
    const long = new Date(Date.now() - 3_600_000);
    for (const name of ['embeddings-0123456789abcdef.bin', 'vectors-hnsw-0123456789abcdef.bin', 'vectors.json']) {
      writeFileSync(join(dir, name), 'old');
      utimesSync(join(dir, name), long, long);
    }
    const folder = IndexFolder.open(dir);
    // The language step writes first: the old vectors must survive it, to be salvaged.
    folder.commit([folder.write('languages', Buffer.from('v1'), { format: 1 })]);
    expect(readdirSync(dir).sort()).toEqual(
      [MANIFEST_FILE, folder.entry('languages')!.file, 'embeddings-0123456789abcdef.bin', 'vectors-hnsw-0123456789abcdef.bin', 'vectors.json'].sort(),
    );
  });
});

describe('delta logs', () => {
  it('return the records before a torn one, and an append cuts the torn tail off first', () => {
    const file = join(tempDir(), 'x.log');
    appendLog(file, Buffer.from('first'));
    appendLog(file, Buffer.from('second'));
    const whole = readFileSync(file);
    writeFileSync(file, whole.subarray(0, whole.length - 2));
    expect(readLog(file).records.map(String)).toEqual(['first']);
    appendLog(file, Buffer.from('third'));
    expect(readLog(file).records.map(String)).toEqual(['first', 'third']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('stop at a record whose checksum fails', () => {
    const file = join(tempDir(), 'x.log');
    appendLog(file, Buffer.from('first'));
    appendLog(file, Buffer.from('second'));
    appendLog(file, Buffer.from('third'));
    const bytes = readFileSync(file);
    bytes[12 + 5 + 12 + 1]! ^= 0x20;
    writeFileSync(file, bytes);
    expect(readLog(file).records.map(String)).toEqual(['first']);
  });
});
