/**
 * `skill-search watch` at 24k skills, as a user edits: the registry pool as one tools file plus
 * {@link FOLDERS} skills as SKILL.md folders (what users edit), served on the socket. Each edit
 * rewrites one SKILL.md with a new description carrying a word no skill has; from the moment the
 * file is saved, the bench asks the running server over its socket until that skill is the
 * answer: save → searchable. The watcher waits for the file to settle (the stability threshold)
 * and for the batch to close (the coalescing window) before it reindexes, so the figure held to
 * the target is the time beyond that wait. The server's resident memory is read once it has been
 * quiet for {@link SETTLE_MS} after its first sync (the start), then at every poll while an edit
 * becomes searchable (the peak) and after every edit (over `--watch-edits`, 100 by default).
 * A few edits of one tools file
 * line follow (the file is read whole, and only its changed line parsed once the server has
 * parsed it: the first such edit after a start from the tools snapshot parses every line).
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_WATCH_OPTIONS } from '../src/load/options.js';
import { SkillSocketClient } from '../src/integrations/socket-client.js';
import { socketPathFor } from '../src/integrations/socket-protocol.js';
import { stop, watchReady } from './cold-hook.js';
import type { Suite } from './context.js';
import { BIN, ColdRun, median, sleep, sourceArgs, type ToolsCatalog } from './cold-paths.js';
import type { Measurement } from './results.js';

/** Skills kept as SKILL.md folders (the rest of the pool stays one tools file). */
const FOLDERS = 200;
/** Edits of one tools file line. */
const TOOLS_EDITS = 5;
/** Give up on one edit becoming searchable after this long. */
const SEARCHABLE_LIMIT_MS = 60_000;
/** Issue 28: searchable ≤ 100 ms after the stability wait; RSS within 1.3× of its start over 100 edits. */
const TARGET_MS = 100;
const TARGET_RSS = 1.3;
/**
 * Quiet time after the server is ready before its start RSS is read: past its idle garbage
 * collection (`IDLE_COLLECTOR_DEFAULTS.quietMs`), so the start is what the first sync holds, not
 * what it left to collect (a lower start, a stricter ratio).
 */
const SETTLE_MS = 2000;

/**
 * A letters-only word unique to edit `n` (digits would tokenise apart), ending in `x` so that
 * the stemmer keeps it whole: `zqvbae` and `zqvbas` both stemmed to `zqvba`, so the later edit's
 * word also found the earlier skill, which could outrank it for good.
 */
export function marker(n: number): string {
  let word = '';
  let rest = n + 26 * 26;
  while (rest > 0) {
    word = String.fromCharCode(97 + (rest % 26)) + word;
    rest = Math.floor(rest / 26);
  }
  return `zqv${word}x`;
}

interface Folder {
  readonly file: string;
  readonly name: string;
  readonly description: string;
}

function skillMd(name: string, description: string): string {
  return `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n\n# ${name}\n\nUse when the description fits.\n`;
}

/** The last {@link FOLDERS} lines of the catalog's tools file moved into SKILL.md folders. */
function splitCatalog(cold: ColdRun, size: number): { catalog: ToolsCatalog; folders: Folder[] } {
  const base = cold.catalog(size, 'watch');
  const lines = readFileSync(base.tools, 'utf8').trimEnd().split('\n');
  writeFileSync(base.tools, `${lines.slice(0, -FOLDERS).join('\n')}\n`);
  const dir = path.join(path.dirname(base.tools), 'skills');
  const folders = lines.slice(-FOLDERS).map((line, i): Folder => {
    const record = JSON.parse(line) as { name?: unknown; description?: unknown };
    const slug = String(record.name ?? 'skill')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 40);
    const name = `${slug || 'skill'}-${i}`;
    const description = String(record.description ?? name).slice(0, 500);
    mkdirSync(path.join(dir, name), { recursive: true });
    const file = path.join(dir, name, 'SKILL.md');
    writeFileSync(file, skillMd(name, description));
    return { file, name, description };
  });
  return { catalog: { ...base, skillsDirs: [dir] }, folders };
}

/** Resident memory of `pid` in MB (Linux's /proc), NaN where it cannot be read. */
function rssMb(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('VmRSS:'));
    return Number(line?.split(/\s+/)[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

/**
 * Saves `write()`, then asks the server until `query`'s top hit is `expected`: ms from the save,
 * or NaN past the limit. `poll` is called after every answer (to read the server's memory).
 */
async function saveToSearchable(client: SkillSocketClient, write: () => void, query: string, expected: string, poll?: () => void): Promise<number> {
  write();
  const saved = performance.now();
  while (performance.now() - saved < SEARCHABLE_LIMIT_MS) {
    const answer = await client.search(query, { k: 1, mode: 'lexical', abstain: 'off' });
    poll?.();
    if (answer.hits[0]?.skill.name === expected) return performance.now() - saved;
    await sleep(10);
  }
  return Number.NaN;
}

/** The `(N ms)` of each `reindexed:` line the server printed. */
function reindexTimes(stdout: string): number[] {
  return [...stdout.matchAll(/^reindexed:.*\((\d+) ms\)$/gm)].map((match) => Number(match[1]));
}

export const coldWatchSuite: Suite = async (context) => {
  const cold = await ColdRun.start(context);
  if (cold === undefined) return { skipped: 'needs the registry pool under the eval folder' };
  const size = cold.sizes.large;
  const edits = context.options.watchEdits;
  const { catalog, folders } = splitCatalog(cold, size);
  // Indexed first, so the server's start is an open of an index rather than a build.
  await cold.index(catalog);
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [BIN, 'watch', ...sourceArgs(catalog)], { env: cold.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const client = await (async () => {
    await watchReady(child);
    return SkillSocketClient.connect(socketPathFor(catalog.indexDir), { requestTimeoutMs: SEARCHABLE_LIMIT_MS });
  })();
  const readyMs = performance.now() - started;
  const { pid } = await client.ping();
  const wait = DEFAULT_WATCH_OPTIONS.stabilityThreshold + DEFAULT_WATCH_OPTIONS.coalesceMs;
  try {
    await sleep(SETTLE_MS);
    const rssStart = rssMb(pid);
    const rss: number[] = [];
    let peak = rssStart;
    const poll = () => {
      peak = Math.max(peak, rssMb(pid));
    };
    const latencies: number[] = [];
    for (let n = 0; n < edits; n++) {
      const folder = folders[n % folders.length]!;
      const word = marker(n);
      latencies.push(
        await saveToSearchable(client, () => writeFileSync(folder.file, skillMd(folder.name, `${folder.description} ${word}`)), word, folder.name, poll),
      );
      rss.push(rssMb(pid));
      poll();
      if (n % 10 === 0) context.log(`cold-watch edit ${n}: searchable after ${latencies.at(-1)!.toFixed(0)} ms; RSS ${rss.at(-1)!.toFixed(0)} MB`);
      cold.floor.sample();
    }
    const folderReindex = reindexTimes(stdout);
    const toolsLatencies: number[] = [];
    for (let n = 0; n < TOOLS_EDITS; n++) {
      const lines = readFileSync(catalog.tools, 'utf8').trimEnd().split('\n');
      const at = ((n + 1) * 997) % lines.length;
      const record = JSON.parse(lines[at]!) as { name: string; description?: string };
      const word = marker(edits + n);
      record.description = `${record.description ?? ''} ${word}`;
      lines[at] = JSON.stringify(record);
      toolsLatencies.push(await saveToSearchable(client, () => writeFileSync(catalog.tools, `${lines.join('\n')}\n`), word, record.name));
    }
    const toolsReindex = reindexTimes(stdout).slice(folderReindex.length);
    const group = `${size} lines (${FOLDERS} as SKILL.md folders)`;
    const beyond = latencies.map((ms) => ms - wait);
    const floor = { name: 'node -e 0', value: cold.floor.median };
    const missed = latencies.filter((ms) => Number.isNaN(ms)).length;
    const measurements: Measurement[] = [
      {
        group,
        name: 'one SKILL.md edit → searchable, beyond the stability wait',
        metric: 'p50',
        value: median(beyond),
        unit: 'ms',
        samples: beyond.length,
        better: 'lower',
        headline: true,
        baseline: floor,
        ratio: median(beyond) / floor.value,
        target: { text: `≤ ${TARGET_MS} ms`, met: median(beyond) <= TARGET_MS && missed === 0 },
      },
      {
        group,
        name: 'one SKILL.md edit → searchable, from the save',
        metric: 'p50',
        value: median(latencies),
        unit: 'ms',
        samples: latencies.length,
        better: 'lower',
      },
      {
        group,
        name: 'server reindex after one SKILL.md edit (its own report)',
        metric: 'p50',
        value: median(folderReindex),
        unit: 'ms',
        samples: folderReindex.length,
        better: 'lower',
      },
      {
        group,
        name: `server RSS after ${edits} edits`,
        metric: 'last',
        value: rss.at(-1)!,
        unit: 'MB',
        better: 'lower',
        baseline: { name: 'RSS after the first sync', value: rssStart },
        ratio: rss.at(-1)! / rssStart,
      },
      {
        // Held to the target: "within 1.3× of its start over 100 edits" is every reading (each poll while an edit waits), not the last one.
        group,
        name: `server RSS over ${edits} edits`,
        metric: 'peak',
        value: peak,
        unit: 'MB',
        better: 'lower',
        baseline: { name: 'RSS after the first sync', value: rssStart },
        ratio: peak / rssStart,
        target: { text: `≤ ${TARGET_RSS}×`, met: peak / rssStart <= TARGET_RSS },
      },
      {
        group,
        name: 'one tools-file line edit → searchable, from the save',
        metric: 'p50',
        value: median(toolsLatencies),
        unit: 'ms',
        samples: toolsLatencies.length,
        better: 'lower',
      },
      {
        group,
        name: 'server reindex after one tools-file line edit (its own report)',
        metric: 'p50',
        value: median(toolsReindex),
        unit: 'ms',
        samples: toolsReindex.length,
        better: 'lower',
      },
    ];
    return {
      measurements,
      notes: [
        `watch ready (first sync of an index built by \`index\`, socket up) in ${readyMs.toFixed(0)} ms; RSS ${rssStart.toFixed(0)} MB ${SETTLE_MS} ms later, peak ${peak.toFixed(0)} MB (every poll), last ${rss.at(-1)!.toFixed(0)} MB over ${edits} edits`,
        `stability wait = stabilityThreshold ${DEFAULT_WATCH_OPTIONS.stabilityThreshold} ms + coalesceMs ${DEFAULT_WATCH_OPTIONS.coalesceMs} ms; edits never searchable within ${SEARCHABLE_LIMIT_MS} ms: ${missed}`,
        `save → searchable p50 ${median(latencies).toFixed(0)} ms, max ${Math.max(...latencies.filter((ms) => !Number.isNaN(ms))).toFixed(0)} ms; tools line edits ${toolsLatencies.map((ms) => ms.toFixed(0)).join(', ')} ms`,
      ],
    };
  } finally {
    client.close();
    await stop(child);
  }
};
