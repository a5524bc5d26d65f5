import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';

/**
 * Makes `dir` read-only even for root (the immutable attribute as root, since chmod does not stop root; a mode
 * without write bits otherwise), or writable again. Throws where that cannot be done (no `chattr`): skip the test.
 */
export function setReadOnly(dir: string, on: boolean): void {
  if (process.getuid?.() === 0) execFileSync('chattr', [on ? '+i' : '-i', dir], { stdio: 'ignore' });
  else chmodSync(dir, on ? 0o555 : 0o755);
}
