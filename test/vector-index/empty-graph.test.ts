import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHashEmbedder } from '../../src/embed/hash-embedder.js';
import { SkillSearchError } from '../../src/errors.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import { UsearchIndex } from '../../src/vector-index/usearch-index.js';
import { removeDir, spawnCli, tempDir } from '../cli/helpers.js';
import { SKILLS } from '../search/fixtures.js';
import { useTempDirs } from '../support/temp-dirs.js';
import { randomVectors } from './helpers.js';

const temp = useTempDirs('empty-graph');
afterEach(() => vi.restoreAllMocks());

describe('an index saved with no skills', () => {
  it('grows from the restored empty graph past its first capacity', () => {
    const file = path.join(temp(), 'graph.bin');
    new UsearchIndex(8).writeData(file);
    const restored = UsearchIndex.restore(file, 8, []);
    const vectors = randomVectors(300, 8, 7);
    vectors.forEach((vector, i) => restored.upsert(`s${i}`, vector, `t${i}`));
    expect(restored.size).toBe(300);
    expect(restored.search(vectors[123]!, 1)[0]?.id).toBe('s123');
  });

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
      const query = await spawnCli(['query', 'merge pdf pages', '--json', ...argv], root);
      expect(query.stderr).toBe('');
      expect(query.code).toBe(0);
      expect(JSON.stringify(JSON.parse(query.stdout))).toContain('"pdf"');
    } finally {
      removeDir(root);
    }
  }, 60_000);
});

describe('a vector index the addon fails on', () => {
  it('is discarded and rebuilt, the sync answers, and the next process loads the rebuilt index', async () => {
    const dir = temp();
    const first = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir, ann: 'hnsw' });
    await first.sync(SKILLS.slice(0, 10));
    await first.close();

    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir, ann: 'hnsw' });
    vi.spyOn(UsearchIndex.prototype, 'upsert').mockImplementationOnce(() => {
      throw new SkillSearchError('INDEX_CORRUPT', 'hnsw addPoint failed: simulated');
    });
    const result = await engine.sync(SKILLS);
    expect(result).toMatchObject({ added: SKILLS.length });
    expect(engine.info.index).toEqual({ state: 'rebuilt', reason: 'hnsw addPoint failed: simulated' });
    const hits = await engine.search('merge pdf pages', { abstain: false });
    expect(hits[0]?.skill.name).toBe('pdf');
    await engine.close();

    const reopened = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir, ann: 'hnsw' });
    expect(reopened.info.index).toEqual({ state: 'loaded', count: SKILLS.length });
    await reopened.close();
  });
});
