import { spawn } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readStdinFd } from '../../src/cli/io.js';
import { ROOT, removeDir, tempDir } from './helpers.js';

const dir = tempDir('skill-search-stdin-');
afterAll(() => removeDir(dir));

function withFile<T>(text: string, use: (fd: number) => Promise<T>): Promise<T> {
  const file = path.join(dir, 'input');
  writeFileSync(file, text);
  const fd = openSync(file, 'r');
  return use(fd).finally(() => closeSync(fd));
}

describe('readStdinFd: the hook input read from a descriptor', () => {
  it('reads a file on stdin whole, over several reads, characters split between them intact', async () => {
    // 64 KiB reads: a two-byte character straddles the first boundary.
    const text = `${'a'.repeat(65_535)}é${'日本語'.repeat(30_000)}`;
    expect(await withFile(text, (fd) => readStdinFd(Number.POSITIVE_INFINITY, fd))).toBe(text);
    expect(await withFile('', (fd) => readStdinFd(Number.POSITIVE_INFINITY, fd))).toBe('');
  });

  it('refuses input past the byte limit', async () => {
    await expect(withFile('x'.repeat(200_000), (fd) => readStdinFd(100_000, fd))).rejects.toThrow('skill-search: stdin is larger than 100000 bytes');
    expect(await withFile('x'.repeat(100_000), (fd) => readStdinFd(100_000, fd))).toHaveLength(100_000);
  });

  it.skipIf(process.platform === 'win32')(
    'a non-blocking pipe (EAGAIN) hands the rest to the stream, a character split at the hand-over intact',
    async () => {
      // process.stdin makes fd 0 non-blocking; the second half arrives after the first read.
      const script = path.join(dir, 'read.mts');
      writeFileSync(
        script,
        `import { readStdinFd } from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'src/cli/io.ts')).href)};
void process.stdin;
process.stdout.write(JSON.stringify(await readStdinFd(1000)));`,
      );
      const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      const bytes = Buffer.from('{"prompt":"café ☕"}');
      const cut = bytes.indexOf(0xc3) + 1;
      child.stdin.write(bytes.subarray(0, cut));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      child.stdin.end(bytes.subarray(cut));
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toBe('{"prompt":"café ☕"}');
    },
    30_000,
  );
});
