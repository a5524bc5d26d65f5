import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IdleCollector } from '../../src/util/idle-collector.js';

describe('IdleCollector', () => {
  it('frees the catalogs a resident index replaced once it is quiet, in a process started without --expose-gc', () => {
    const child = spawnSync(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'idle-collector-child.ts')], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    const result = JSON.parse(child.stdout) as {
      catalog: number;
      aliveBefore: number;
      aliveAfter: number;
      before: number;
      after: number;
      collections: number;
      collectionsLater: number;
    };
    expect(result.catalog).toBe(20_000);
    // Dropped but not collected: only a full collection frees the old generation.
    expect(result.aliveBefore).toBe(30);
    expect(result.aliveAfter).toBe(0);
    expect(result.after).toBeLessThan(result.before - 30 * 1024 * 1024);
    expect(result.collections).toBeGreaterThan(0);
    // Quiet again with nothing new to free: no further collection.
    expect(result.collectionsLater).toBe(result.collections);
  }, 60_000);

  it('names a bad option', () => {
    expect(() => new IdleCollector({ quietMs: 0 })).toThrow(/quietMs/);
  });
});
