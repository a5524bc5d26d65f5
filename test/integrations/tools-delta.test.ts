import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LiveIndexOptions } from '../../src/integrations/live-index.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { removeDir, tempDir } from '../cli/helpers.js';
import { assembledAnswers, liveAnswers } from '../support/search-answers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

const TOPICS = ['rotate the logs of', 'plan a budget for', 'translate subtitles of', 'benchmark the cache of', 'audit the permissions of'];
const QUERIES = [
  'rotate the logs of service 7',
  'transcribe handwritten meeting minutes',
  'audit the permissions of service 4',
  'nothing like any skill at all',
];
const tool = (id: string, description: string): string => JSON.stringify({ id, name: id, description });

function setup(): { tools: string; options: (store: string) => LiveIndexOptions; cache: string } {
  const root = tempDir();
  dirs.push(root);
  const home = path.join(root, 'home');
  mkdirSync(home);
  const tools = path.join(root, 'tools.jsonl');
  writeFileSync(tools, Array.from({ length: 40 }, (_, i) => tool(`tool-${i}`, `${TOPICS[i % TOPICS.length]} service ${i}`)).join('\n'));
  const cache = path.join(root, 'cache');
  const options = (store: string): LiveIndexOptions => ({
    catalog: { cwd: root, home, toolsFiles: [tools], demo: 'never', claudePlugins: false },
    model: 'hash',
    indexDir: path.join(cache, 'index'),
    store: path.join(cache, store),
  });
  return { tools, options, cache };
}

/** The first row `sql` reads from the store at `file` (its one column's value when `pluck`). */
function storeRead(file: string, sql: string, pluck = false): unknown {
  const store = SqliteStore.open(file);
  try {
    const statement = store.database.prepare(sql);
    return (pluck ? statement.pluck() : statement).get();
  } finally {
    store.close();
  }
}

describe('a tools file changed since its catalog was saved', () => {
  it('is written from its changed lines only, and answers, with the same problems, as a clean build', async () => {
    const { tools, options, cache } = setup();
    const saved = options('store.sqlite');
    await liveAnswers(saved, QUERIES);
    const table = (): unknown => storeRead(saved.store!, 'SELECT key, size, mtime_ms, text, starts, outcomes FROM tools_lines');
    const tableBefore = table();
    expect(tableBefore).toMatchObject({ key: expect.stringContaining(tools) });

    // An edit, a line moved, the first of two lines for one id removed, a broken line and a tool added.
    const lines = readFileSync(tools, 'utf8').split('\n');
    lines[7] = tool('tool-7', 'Transcribe handwritten meeting minutes');
    lines.splice(2, 0, tool('tool-30', 'A later line for tool-30: it wins the id once the first goes'));
    const [moved] = lines.splice(20, 1);
    lines.splice(5, 0, moved!, '{"id": "broken", ');
    lines.splice(lines.indexOf(tool('tool-30', `${TOPICS[0]} service 30`)), 1);
    lines.push(tool('tool-new', 'Audit the permissions of service 4 twice a day'));
    writeFileSync(tools, lines.join('\n'));

    const { assembled, answers: got } = await assembledAnswers(saved, QUERIES);
    expect(assembled).toEqual({ embedded: 3, tokenised: 3 });
    // Told from the line table as the first load left it: the file was not loaded whole again.
    expect(table()).toEqual(tableBefore);
    expect(readdirSync(cache)).not.toContain('tools');

    const clean = options('clean.sqlite');
    const expected = await liveAnswers(clean, QUERIES);
    expect(got).toEqual(expected);
    expect(JSON.stringify(expected[1])).toContain('tool-7');
    const diagnostics = (file: string): unknown => storeRead(file, 'SELECT diagnostics FROM catalogs ORDER BY id DESC LIMIT 1', true);
    expect(diagnostics(saved.store!)).toBe(diagnostics(clean.store!));
    expect(diagnostics(clean.store!)).toContain(`${tools}:7`);
  });
});
