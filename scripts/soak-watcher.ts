/**
 * Watcher soak: 1,000 rapid skill-file operations (creates, edits, editor-style atomic saves,
 * folder renames, deletes) against a watched catalog, with native events and with polling.
 * After settling, the watched catalog must equal a fresh scan of the disk.
 *
 *   npx tsx scripts/soak-watcher.ts [--ops 1000] [--seed 1] [--mode native|polling|both]
 *
 * Prints one pass/fail line per mode; exits 1 on any mismatch.
 */
import { parseArgs } from 'node:util';
import { runWatcherStorm } from '../test/load/storm.js';

const { values } = parseArgs({
  options: {
    ops: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '1' },
    mode: { type: 'string', default: 'both' },
  },
});
const ops = Number(values.ops);
const seed = Number(values.seed);
if (!Number.isInteger(ops) || ops <= 0) throw new Error(`Expected \`--ops\` to be a positive integer, got \`${values.ops}\``);
const modes = values.mode === 'both' ? [false, true] : [values.mode === 'polling'];

let failed = false;
for (const usePolling of modes) {
  const result = await runWatcherStorm({
    ops,
    usePolling,
    seed,
    maxPauseMs: 3,
    // Polling sees a change up to one interval (2 s) late, then waits out the 1 s stability window.
    quietMs: usePolling ? 7000 : 3000,
    timeoutMs: 600_000,
  });
  const mode = usePolling ? 'polling' : 'native';
  const verdict = result.equal ? 'PASS' : 'FAIL';
  console.log(
    `soak-watcher ${verdict} mode=${mode} ops=${result.ops} seed=${seed} skills=${result.onDisk.length} ` +
      `changeEvents=${result.changeEvents} elapsedMs=${result.elapsedMs}`,
  );
  if (!result.equal) {
    failed = true;
    const missing = result.onDisk.filter((line) => !result.watched.includes(line));
    const stale = result.watched.filter((line) => !result.onDisk.includes(line));
    console.log(`  on disk but not in the catalog: ${JSON.stringify(missing.slice(0, 10))}`);
    console.log(`  in the catalog but not on disk: ${JSON.stringify(stale.slice(0, 10))}`);
  }
  if (result.errors.length > 0) console.log(`  watcher errors: ${JSON.stringify(result.errors.slice(0, 5))}`);
}
process.exit(failed ? 1 : 0);
