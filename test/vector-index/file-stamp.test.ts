import { renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stampFileFor, stampVouchesFor, writeStamp } from '../../src/vector-index/file-stamp.js';
import { useTempDirs } from '../support/temp-dirs.js';

const tempDir = useTempDirs('file-stamp');

function written(text = 'payload'): string {
  const file = join(tempDir(), 'data.bin');
  writeFileSync(file, text);
  writeStamp(file, 'abc');
  return file;
}

describe('file stamps', () => {
  it('vouch for a file untouched since it was stamped, with the recorded checksum only', () => {
    const file = written();
    expect(stampVouchesFor(file, 'abc')).toBe(true);
    expect(stampVouchesFor(file, 'abd')).toBe(false);
  });

  it('do not vouch for a file rewritten in place (new mtime), even at the same size', () => {
    const file = written();
    const { mtime } = statSync(file);
    writeFileSync(file, 'paylo4d');
    utimesSync(file, mtime, new Date(mtime.getTime() + 1000));
    expect(stampVouchesFor(file, 'abc')).toBe(false);
  });

  it('do not vouch for another file renamed into place, even with the same size and mtime', () => {
    const file = written();
    const { atime, mtime } = statSync(file);
    const other = join(tempDir(), 'other.bin');
    writeFileSync(other, 'paylo4d');
    utimesSync(other, atime, mtime);
    renameSync(other, file);
    expect(stampVouchesFor(file, 'abc')).toBe(false);
  });

  it('do not vouch when the stamp is missing or torn', () => {
    const file = written();
    writeFileSync(stampFileFor(file), '{"size":7,"mti');
    expect(stampVouchesFor(file, 'abc')).toBe(false);
    expect(stampVouchesFor(join(tempDir(), 'never-written.bin'), 'abc')).toBe(false);
  });
});
