import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { runCli } from '../cli/helpers.js';
import { useTempDirs } from '../support/temp-dirs.js';

const temp = useTempDirs('overlay-graph');
/** Above the exact-search size (2,048 distinct vectors): the catalog is searched through a graph. */
const TOOLS = 2_200;
const TOPICS = ['rotate the logs of', 'plan a budget for', 'translate subtitles of', 'benchmark the cache of', 'audit the permissions of'];
const QUERIES = ['rotate the logs of service 17', 'transcribe handwritten meeting minutes', 'audit the permissions of cluster 1204'];

function toolsFile(file: string): void {
  const lines = Array.from({ length: TOOLS }, (_, i) =>
    JSON.stringify({ id: `tool-${i}`, name: `tool-${i}`, description: `${TOPICS[i % TOPICS.length]} service ${i}` }),
  );
  writeFileSync(file, lines.join('\n'));
}

async function answers(argv: readonly string[], cache: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const query of QUERIES) {
    const result = await runCli(['query', '--json', '--quiet', '--mode', 'dense', ...argv, query], cache);
    expect([result.code, result.stderr]).toEqual([0, '']);
    const { tookMs: _took, ...answer } = JSON.parse(result.stdout) as { tookMs: number };
    out.push(answer);
  }
  return out;
}

describe('a changed catalog above the exact-search size, assembled as an overlay', () => {
  it("names its base's graph (none loaded or written), scans the changed vector beside it, and answers as a clean build", async () => {
    const root = temp();
    const tools = path.join(root, 'tools.jsonl');
    toolsFile(tools);
    const cache = path.join(root, 'cache');
    const sources = ['--tools', tools, '--model', 'hash', '--no-demo', '--cwd', root];
    expect((await runCli(['index', '--quiet', ...sources], cache)).code).toBe(0);
    const graphs = path.join(cache, 'graphs');
    const [baseGraph] = readdirSync(graphs);
    expect(readdirSync(graphs)).toHaveLength(1);

    // One description edited: the tool now matches a query no tool matched before.
    const lines = readFileSync(tools, 'utf8').split('\n');
    lines[1500] = JSON.stringify({ id: 'tool-1500', name: 'tool-1500', description: 'Transcribe handwritten meeting minutes' });
    writeFileSync(tools, lines.join('\n'));
    const got = await answers(sources, cache);

    const store = SqliteStore.open(path.join(cache, 'store.sqlite'));
    const rows = store.database.prepare('SELECT id, base, graph FROM catalogs ORDER BY id').all() as { id: number; base: number | null; graph: string }[];
    store.close();
    expect(rows.map((row) => [row.base, row.graph])).toEqual([
      [null, baseGraph],
      [rows[0]!.id, baseGraph],
    ]);
    expect(readdirSync(graphs)).toEqual([baseGraph]);

    const clean = await answers(sources, path.join(root, 'clean'));
    expect(JSON.stringify(clean[1])).toContain('tool-1500');
    expect(got).toEqual(clean);

    // Then a tool added (members no longer in place) over that overlay, whose graph holds its base's
    // labels: the new catalog gets a graph of its own and still answers as a clean build.
    writeFileSync(tools, [...lines, JSON.stringify({ id: 'added', name: 'added', description: 'Audit the permissions of cluster 1204 twice' })].join('\n'));
    const grown = await answers(sources, cache);
    expect(readdirSync(graphs)).toHaveLength(2);
    const cleanGrown = await answers(sources, path.join(root, 'clean-grown'));
    expect(JSON.stringify(cleanGrown[2])).toContain('added');
    expect(grown).toEqual(cleanGrown);
  }, 120_000);
});
