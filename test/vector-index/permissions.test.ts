import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SkillSearchEngine } from '../../src/search/engine.js';
import { createHashEmbedder } from '../../src/embed/hash-embedder.js';
import { STORE_DEFAULTS } from '../../src/store/entry-store.js';
import { EXACT_BELOW } from '../../src/vector-index/vector-index.js';
import { SKILLS, removeDir, runCli, tempDir } from '../cli/helpers.js';
import { makeSkill } from '../search/fixtures.js';

const cache = tempDir();
afterAll(() => removeDir(cache));

describe('index files are private to their user', () => {
  it('index creates its folders 0700 and the store 0600', async () => {
    const indexDir = path.join(cache, 'nested', 'index');
    const result = await runCli(['index', '--skills-dir', SKILLS, '--model', 'hash', '--index-dir', indexDir], cache);
    expect(result.code).toBe(0);
    expect(statSync(indexDir).mode & 0o777).toBe(0o700);
    expect(statSync(path.dirname(indexDir)).mode & 0o777).toBe(0o700);
    const files = readdirSync(cache).filter((file) => file.startsWith(STORE_DEFAULTS.file));
    expect(files).toContain(STORE_DEFAULTS.file);
    for (const file of files) expect([file, statSync(path.join(cache, file)).mode & 0o777]).toEqual([file, 0o600]);
  });

  it('a catalog graph file is 0600 in a 0700 folder', async () => {
    const root = path.join(cache, 'graphs-root');
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder({ dimensions: 16 }), store: path.join(root, STORE_DEFAULTS.file) });
    await engine.sync(Array.from({ length: EXACT_BELOW }, (_, i) => makeSkill({ name: `s-${i}`, description: `Skill number ${i}` })));
    expect(engine.saveCatalog({ sourceStamp: 's', portableStamp: 's', diagnostics: [] })).toBe(true);
    await engine.close();
    const graphs = path.join(root, STORE_DEFAULTS.graphDir);
    expect(statSync(graphs).mode & 0o777).toBe(0o700);
    const files = readdirSync(graphs);
    expect(files).toHaveLength(1);
    expect(statSync(path.join(graphs, files[0]!)).mode & 0o777).toBe(0o600);
  });
});
