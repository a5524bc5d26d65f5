import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { afterAll } from 'vitest';
import { removeDir, tempDir } from './helpers.js';

/**
 * A home for one test file whose `cache` folder `lock()` makes read-only even for root (the immutable attribute as
 * root, since chmod does not stop root; a mode without write bits otherwise). `lock()` throws where that cannot be
 * done (no `chattr`): skip the test. The folder is unlocked and the home removed after the file's tests.
 */
export function readOnlyCacheHome(prefix: string): { readonly home: string; readonly cache: string; lock(): void } {
  const home = tempDir(prefix);
  const cache = path.join(home, 'cache');
  let locked = false;
  const setLocked = (on: boolean): void => {
    if (process.getuid?.() === 0) execFileSync('chattr', [on ? '+i' : '-i', cache], { stdio: 'ignore' });
    else chmodSync(cache, on ? 0o555 : 0o755);
    locked = on;
  };
  afterAll(() => {
    if (locked) setLocked(false);
    removeDir(home);
  });
  return { home, cache, lock: () => setLocked(true) };
}
