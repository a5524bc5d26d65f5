/**
 * `npm run soak`: every soak in turn (abuse, prefetch, watcher), each in its own process so
 * one's memory never counts against another's. Exits 1 if any failed.
 *
 *   npx tsx scripts/soak.ts
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const SOAKS = ['soak-abuse.ts', 'soak-prefetch.ts', 'soak-watcher.ts'] as const;

let failed = false;
for (const soak of SOAKS) {
  const script = fileURLToPath(new URL(soak, import.meta.url));
  const result = spawnSync(process.execPath, ['--import', 'tsx', script], { stdio: 'inherit' });
  if (result.status !== 0) failed = true;
}
process.exitCode = failed ? 1 : 0;
