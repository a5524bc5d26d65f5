import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VectorStore } from '../../src/vector-index/store.js';
import { randomVectors } from './helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Starts the writer, waits for `saves` completed saves plus `extraMs`, then SIGKILLs it mid-write. */
function runAndKill(dir: string, kind: 'hnsw' | 'exact', saves: number, extraMs: number, pattern: 'bulk' | 'delta'): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'crash-writer.ts'), dir, kind, pattern], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let seen = 0;
    let killing = false;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      seen += chunk.split('\n').filter((line) => line.startsWith('saved')).length;
      if (seen >= saves && !killing) {
        killing = true;
        setTimeout(() => child.kill('SIGKILL'), extraMs);
      }
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`writer exited on its own (${String(signal)})`))));
  });
}

describe('crash safety: a writer killed with SIGKILL during repeated saves', () => {
  it.each([
    ['hnsw', 'bulk', 3, 0],
    ['hnsw', 'bulk', 5, 3],
    ['exact', 'bulk', 4, 1],
    ['hnsw', 'delta', 70, 1],
    ['exact', 'delta', 25, 0],
  ] as const)('%s, %s saves, after %i saves + %i ms: the next open loads a complete index', async (kind, pattern, saves, extraMs) => {
    const dir = mkdtempSync(join(tmpdir(), 'skill-search-crash-'));
    dirs.push(dir);
    await runAndKill(dir, kind, saves, extraMs, pattern);
    const store = VectorStore.open({ kind, model: 'crash', dimensions: 32, folder: dir });
    expect(store.status.state).toBe('loaded');
    expect(store.index.size).toBeGreaterThan(0);
    // A delta writer keeps 400 entries after its first save (one in, one out per save).
    if (pattern === 'delta') expect(store.index.size).toBe(400);
    // Every entry the manifest lists is present with exactly the vector the writer gave it.
    for (const entry of store.index.entries()) {
      const id = Number(entry.id.slice(1));
      const [match] = store.index.search(randomVectors(1, 32, id + 1)[0]!, 1);
      expect(match?.id).toBe(entry.id);
      expect(match?.score).toBeCloseTo(1, 4);
    }
  });
});
