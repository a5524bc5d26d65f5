import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHashEmbedder } from '../../src/embed/hash-embedder.js';
import { IndexFolder, MANIFEST_FILE } from '../../src/index-folder/index-folder.js';
import { LEXICAL_ARTEFACT, loadLexicalIndex } from '../../src/lexical/lexical-store.js';
import { LEXICAL_FORMAT_VERSION } from '../../src/lexical/lexical-index.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import type { SearchHit } from '../../src/types.js';
import { VectorStore } from '../../src/vector-index/store.js';
import { counting, makeSkill, SKILLS } from './fixtures.js';
import { useTempDirs } from '../support/temp-dirs.js';

const tempDir = useTempDirs('lazy');
afterEach(() => {
  vi.restoreAllMocks();
});

const names = (hits: readonly SearchHit[]): string[] => hits.map((hit) => hit.skill.name);
const lexicalPath = (dir: string): string => join(dir, IndexFolder.open(dir).entry(LEXICAL_ARTEFACT)!.file);
const lexicalLog = (dir: string): string => join(dir, IndexFolder.open(dir).entry(LEXICAL_ARTEFACT)!.log);

/** A persisted index of SKILLS built the normal (hybrid) way. */
async function persisted(): Promise<string> {
  const dir = tempDir();
  const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir });
  await engine.sync(SKILLS);
  await engine.close();
  return dir;
}

describe('SkillSearchEngine lexical-only path', () => {
  it('syncs and searches a persisted index without embedding or reading a vector', async () => {
    const dir = await persisted();
    const open = vi.spyOn(VectorStore, 'open');
    const embedder = counting();
    const engine = await SkillSearchEngine.open({ embedder, indexDir: dir, mode: 'lexical' });
    expect(await engine.sync(SKILLS)).toEqual({ added: 0, updated: 0, removed: 0, unchanged: SKILLS.length, embedded: 0 });
    expect(names(await engine.search('merge pdf pages'))[0]).toBe('pdf');
    expect(embedder.texts).toEqual([]);
    expect(open).not.toHaveBeenCalled();
  });

  it('catches the vectors up at the first hybrid search after lexical-only syncs', async () => {
    const dir = await persisted();
    const edited = makeSkill({ name: 'docx', description: 'Write Word files with tracked changes.' });
    const next = SKILLS.map((skill) => (skill.name === 'docx' ? edited : skill)).filter((skill) => skill.name !== 'pdf');
    const embedder = counting();
    const lazy = await SkillSearchEngine.open({ embedder, indexDir: dir, mode: 'lexical' });
    expect(await lazy.sync(next)).toEqual({ added: 0, updated: 1, removed: 1, unchanged: SKILLS.length - 2, embedded: 0 });
    expect(embedder.texts).toEqual([]);

    const eager = await SkillSearchEngine.open({ embedder: createHashEmbedder() });
    await eager.sync(next);
    for (const query of ['write a word document', 'merge pdf pages']) {
      const expected = await eager.search(query, { mode: 'hybrid', abstain: false, k: 10 });
      expect((await lazy.search(query, { mode: 'hybrid', abstain: false, k: 10 })).map((hit) => [hit.skill.name, hit.score])).toEqual(
        expected.map((hit) => [hit.skill.name, hit.score]),
      );
    }
    // The two queries, and of the catalog only the edited skill.
    expect(embedder.texts).toEqual(['write a word document', 'docx: Write Word files with tracked changes.', 'merge pdf pages']);
    await lazy.close();

    // The catch-up was persisted: a fresh hybrid engine has nothing to do.
    const again = counting();
    const reopened = await SkillSearchEngine.open({ embedder: again, indexDir: dir });
    expect(await reopened.sync(next)).toMatchObject({ added: 0, updated: 0, removed: 0, embedded: 0 });
    expect(again.texts).toEqual([]);
  });

  it('creates the index folder when a lexical-only engine is the first to write it', async () => {
    const dir = join(tempDir(), 'not', 'yet');
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir, mode: 'lexical' });
    expect(await engine.sync(SKILLS)).toMatchObject({ added: SKILLS.length, embedded: 0 });
    expect('index' in loadLexicalIndex(dir)).toBe(true);
  });

  it('embeds during a lexical-mode sync when asked to', async () => {
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), mode: 'lexical' });
    expect(await engine.sync(SKILLS, { dense: true })).toMatchObject({ added: SKILLS.length, embedded: SKILLS.length });
  });

  it('does not read the vectors for a lexical search in a default-mode engine either', async () => {
    const dir = await persisted();
    const load = vi.spyOn(VectorStore, 'open');
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir });
    await engine.sync(SKILLS, { dense: false });
    expect(names(await engine.search('slow sql query', { mode: 'lexical' }))[0]).toBe('sql-optimization');
    expect(load).not.toHaveBeenCalled();
  });
});

describe('persisted lexical index', () => {
  it('round-trips: a reopened engine loads it instead of re-indexing and ranks the same', async () => {
    const dir = await persisted();
    const loaded = loadLexicalIndex(dir);
    if (!('index' in loaded)) throw new Error(loaded.reason);
    expect([...loaded.index.ids()].sort()).toEqual(SKILLS.map((skill) => skill.id).sort());

    const fresh = await SkillSearchEngine.open({ embedder: createHashEmbedder(), mode: 'lexical' });
    await fresh.sync(SKILLS);
    const reopened = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir, mode: 'lexical' });
    expect(await reopened.sync(SKILLS)).toMatchObject({ added: 0, unchanged: SKILLS.length });
    for (const query of ['merge pdf pages', 'deploy a container to kubernetes', 'kubernets deploy']) {
      const expected = await fresh.search(query, { abstain: false, k: 10 });
      expect((await reopened.search(query, { abstain: false, k: 10 })).map((hit) => [hit.skill.name, hit.score])).toEqual(
        expected.map((hit) => [hit.skill.name, hit.score]),
      );
    }
  });

  it('is brought up to date from the file when the catalog changed, and saved again', async () => {
    const dir = await persisted();
    const added = makeSkill({ name: 'zebra-census', description: 'Count zebras in drone photos of the savanna.' });
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir, mode: 'lexical' });
    expect(await engine.sync([...SKILLS.slice(1), added])).toEqual({ added: 1, updated: 0, removed: 1, unchanged: SKILLS.length - 1, embedded: 0 });
    expect(names(await engine.search('zebras savanna'))).toEqual(['zebra-census']);
    const loaded = loadLexicalIndex(dir);
    if (!('index' in loaded)) throw new Error(loaded.reason);
    expect(loaded.index.has('zebra-census')).toBe(true);
    expect(loaded.index.has(SKILLS[0]!.id)).toBe(false);
  });

  const corruptions: [string, (dir: string) => void, RegExp][] = [
    [
      'a flipped byte',
      (dir) => {
        const bytes = readFileSync(lexicalPath(dir));
        bytes[bytes.length >> 1]! ^= 0x01;
        writeFileSync(lexicalPath(dir), bytes);
      },
      /^lexical file lexical-[0-9a-f]{16}\.bin fails its checksum$/,
    ],
    ['a truncated file', (dir) => writeFileSync(lexicalPath(dir), readFileSync(lexicalPath(dir)).subarray(0, 40)), /fails its checksum$/],
    [
      'another format version',
      (dir) =>
        writeFileSync(join(dir, MANIFEST_FILE), readFileSync(join(dir, MANIFEST_FILE), 'utf8').replace(`"format":${LEXICAL_FORMAT_VERSION},`, '"format":999,')),
      new RegExp(`^lexical format 999 ≠ ${LEXICAL_FORMAT_VERSION}$`),
    ],
    ['a manifest that is not JSON', (dir) => writeFileSync(join(dir, MANIFEST_FILE), 'nope'), /^index\.json is not valid JSON$/],
  ];
  for (const [what, corrupt, reason] of corruptions) {
    it(`is rebuilt when the index folder has ${what}`, async () => {
      const dir = await persisted();
      corrupt(dir);
      expect(loadLexicalIndex(dir)).toEqual({ reason: expect.stringMatching(reason) });

      const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir, mode: 'lexical' });
      expect(await engine.sync(SKILLS)).toMatchObject({ added: SKILLS.length, unchanged: 0 });
      expect(names(await engine.search('merge pdf pages'))[0]).toBe('pdf');
      expect('index' in loadLexicalIndex(dir)).toBe(true);
    });
  }

  it('is rebuilt when the body checks out but does not describe an index', async () => {
    const dir = tempDir();
    const folder = IndexFolder.open(dir);
    const body = Buffer.from(JSON.stringify({ entries: [['pdf', 'x']], index: { documentCount: 1 } }));
    folder.commit([folder.write(LEXICAL_ARTEFACT, body, { format: LEXICAL_FORMAT_VERSION })]);
    expect(loadLexicalIndex(dir)).toMatchObject({ reason: expect.stringMatching(/^lexical body is unreadable: /) });
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir, mode: 'lexical' });
    expect(await engine.sync(SKILLS)).toMatchObject({ added: SKILLS.length });
  });
});

describe('the persisted lexical delta log', () => {
  it('holds a one-skill change without rewriting the lexical base file, and a fresh engine searches it', async () => {
    const dir = tempDir();
    const first = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir, mode: 'lexical' });
    await first.sync(SKILLS);
    const base = readFileSync(lexicalPath(dir));
    const added = { ...SKILLS[0]!, id: 'zebra-census', name: 'zebra-census', description: 'Count zebras on the savanna', contentHash: 'f'.repeat(64) };
    await first.sync([...SKILLS.slice(1), added]);
    expect(readFileSync(lexicalPath(dir)).equals(base)).toBe(true);
    expect(existsSync(lexicalLog(dir))).toBe(true);

    const second = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir, mode: 'lexical' });
    expect(await second.sync([...SKILLS.slice(1), added])).toMatchObject({ added: 0, updated: 0, removed: 0 });
    expect(names(await second.search('zebras savanna'))).toEqual(['zebra-census']);
  });

  it('is ignored when damaged: the engine re-indexes the skills it held', async () => {
    const dir = tempDir();
    const first = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir, mode: 'lexical' });
    await first.sync(SKILLS);
    const added = { ...SKILLS[0]!, id: 'zebra-census', name: 'zebra-census', description: 'Count zebras on the savanna', contentHash: 'f'.repeat(64) };
    await first.sync([...SKILLS.slice(1), added]);
    const file = lexicalLog(dir);
    writeFileSync(file, readFileSync(file, 'utf8').replace('zebras', 'zebrаs'));
    const second = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir, mode: 'lexical' });
    expect(await second.sync([...SKILLS.slice(1), added])).toMatchObject({ added: 1, removed: 1 });
    expect(names(await second.search('zebras savanna'))).toEqual(['zebra-census']);
  });
});
