import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHashEmbedder } from '../../src/embed/hash-embedder.js';
import { SkillSearchError } from '../../src/errors.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import { CatalogVectors } from '../../src/vector-index/catalog-vectors.js';
import { removeDir, spawnCli, tempDir } from '../cli/helpers.js';
import { SKILLS } from '../search/fixtures.js';
import { useTempDirs } from '../support/temp-dirs.js';

const temp = useTempDirs('empty-graph');
afterEach(() => vi.restoreAllMocks());

describe('an index built with no skills', () => {
  it('lets a later process index and query once a skill exists (the CLI does not abort)', async () => {
    const root = tempDir('skill-search-empty-');
    try {
      const skills = path.join(root, 'skills');
      mkdirSync(skills);
      const argv = ['--skills-dir', skills, '--index-dir', path.join(root, 'index'), '--model', 'hash'];
      const empty = await spawnCli(['index', ...argv], root);
      expect(empty.stderr).toContain('no skills found');
      mkdirSync(path.join(skills, 'pdf'));
      writeFileSync(path.join(skills, 'pdf', 'SKILL.md'), '---\nname: pdf\ndescription: Merge and split PDF pages\n---\nBody\n');
      // --quiet: on a loaded machine the build can outlast the delay before progress lines start.
      const query = await spawnCli(['query', 'merge pdf pages', '--json', '--quiet', ...argv], root);
      expect(query.stderr).toBe('');
      expect(query.code).toBe(0);
      expect(JSON.stringify(JSON.parse(query.stdout))).toContain('"pdf"');
    } finally {
      removeDir(root);
    }
  }, 60_000);
});

describe('a graph the addon fails on', () => {
  it('is laid out anew from the vectors at hand: the sync answers and embeds nothing more', async () => {
    const store = path.join(temp(), 'store.sqlite');
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), store, ann: 'hnsw' });
    await engine.sync(SKILLS.slice(0, 10));
    vi.spyOn(CatalogVectors.prototype, 'set').mockImplementationOnce(() => {
      throw new SkillSearchError('INDEX_CORRUPT', 'usearch add failed: simulated');
    });
    const result = await engine.sync(SKILLS);
    expect(result).toMatchObject({ added: SKILLS.length, embedded: SKILLS.length - 10 });
    const hits = await engine.search('merge pdf pages', { abstain: false });
    expect(hits[0]?.skill.name).toBe('pdf');
    await engine.close();
  });
});
