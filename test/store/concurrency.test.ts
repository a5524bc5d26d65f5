import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { useTempDirs } from '../support/temp-dirs.js';

const temp = useTempDirs('store-concurrency');
const COUNT = 200;

function writer(file: string, name: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'store-writer.ts'), file, name, String(COUNT)]);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the shared store under concurrent processes', () => {
  it('four processes creating, writing and reading one store at once all succeed, and every vector is kept', async () => {
    const file = path.join(temp(), 'cache', 'store.sqlite');
    const runs = await Promise.all(['a', 'b', 'c', 'd'].map((name) => writer(file, name)));
    for (const run of runs) {
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ readBack: COUNT, problem: null });
    }
    const store = SqliteStore.open(file);
    for (const name of ['a', 'b', 'c', 'd']) {
      const keys = Array.from({ length: COUNT }, (_, i) => `${name}-${i}`);
      expect(store.vectors('m', 4, keys).size).toBe(COUNT);
      expect([...store.vectors('m', 4, [`${name}-7`]).get(`${name}-7`)!]).toEqual([7, 1, 2, 3]);
    }
    store.close();
  }, 60_000);
});
