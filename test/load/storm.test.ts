import { describe, expect, it } from 'vitest';
import { runWatcherStorm } from './storm.js';

describe('watcher storm', () => {
  it('after 200 rapid edits, renames, deletes and atomic saves the catalog equals the disk', { timeout: 60_000 }, async () => {
    const result = await runWatcherStorm({
      ops: 200,
      usePolling: false,
      seed: 20261202,
      maxPauseMs: 5,
      quietMs: 3000,
      timeoutMs: 50_000,
    });
    expect(result.onDisk.length).toBeGreaterThan(5);
    expect(result.watched).toEqual(result.onDisk);
    expect(result.changeEvents).toBeGreaterThan(0);
  });
});
