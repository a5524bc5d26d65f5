import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LiveIndex } from '../../src/integrations/live-index.js';
import { SKILLS, copyFixture, removeDir, tempDir } from '../cli/helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

describe('LiveIndex', () => {
  it('syncs once per catalog generation and follows edits after clear()', async () => {
    const skills = copyFixture(SKILLS);
    const indexDir = tempDir();
    dirs.push(skills, indexDir);
    const live = await LiveIndex.open({ catalog: { skillsDirs: [skills] }, model: 'hash', indexDir });
    try {
      const first = await live.refresh();
      expect(first.sync).toMatchObject({ added: 6, embedded: 6 });
      expect((await live.refresh()).sync).toBeUndefined();

      writeFileSync(path.join(skills, 'image-resize', 'SKILL.md'), '---\nname: image-resize\ndescription: Transcribe handwritten meeting minutes\n---\n');
      live.catalog.clear();
      const hits = await live.search('transcribe handwritten meeting minutes', { k: 1 });
      expect(hits.map((hit) => hit.skill.name)).toEqual(['image-resize']);
      expect((await live.skills()).map((skill) => skill.name)).toContain('image-resize');
    } finally {
      await live.close();
    }
  });

  it('reopens from disk without re-embedding unchanged skills', async () => {
    const indexDir = tempDir();
    dirs.push(indexDir);
    const open = () => LiveIndex.open({ catalog: { skillsDirs: [SKILLS] }, model: 'hash', indexDir });
    const a = await open();
    await a.refresh();
    await a.close();
    const b = await open();
    try {
      expect((await b.refresh()).sync).toMatchObject({ added: 0, unchanged: 6, embedded: 0 });
    } finally {
      await b.close();
    }
  });

  it('close() is idempotent', async () => {
    const live = await LiveIndex.open({ catalog: { skillsDirs: [SKILLS] }, model: 'hash' });
    const first = live.close();
    expect(live.close()).toBe(first);
    await first;
  });

  it('refuses an unknown key of its own, of its catalog and of its knobs by the full name, before anything opens', async () => {
    const options = { catalog: { skillsDirs: [SKILLS] }, model: 'hash' };
    await expect(LiveIndex.open({ ...options, modle: 'hash' } as never)).rejects.toThrow(
      'skill-search: Expected an option of LiveIndex, got `modle` (did you mean `model`?); its options: catalog, model, ',
    );
    await expect(LiveIndex.openSnapshot({ ...options, catalog: { skilsDirs: [SKILLS] } } as never)).rejects.toThrow(
      'skill-search: Expected an option of LiveIndex, got `catalog.skilsDirs` (did you mean `catalog.skillsDirs`?); its options under `catalog`: cwd, ',
    );
    await expect(LiveIndex.open({ ...options, knobs: { denseShar: 0.5 } } as never)).rejects.toThrow(
      'skill-search: Expected an option of LiveIndex, got `knobs.denseShar` (did you mean `knobs.denseShare`?)',
    );
    await expect(LiveIndex.open({ ...options, knobs: { hnsw: { efSerch: 8 } } } as never)).rejects.toThrow(
      'got `hnsw.efSerch` (did you mean `hnsw.efSearch`?)',
    );
  });
});
