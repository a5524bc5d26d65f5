import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { BROKEN, SKILLS, copyFixture, removeDir, runCli, tempDir } from './helpers.js';

const cache = tempDir();
const dirs = [cache];
afterAll(() => dirs.forEach(removeDir));

describe('index', () => {
  it("counts against its own saved catalog, not another project's saved after it", async () => {
    const own = tempDir();
    const other = copyFixture(SKILLS);
    dirs.push(own, other);
    rmSync(path.join(other, 'pdf-forms'), { recursive: true });
    expect((await runCli(['index', '--skills-dir', SKILLS, '--model', 'hash'], own)).code).toBe(0);
    expect((await runCli(['index', '--skills-dir', other, '--model', 'hash'], own)).code).toBe(0);
    const again = await runCli(['index', '--skills-dir', SKILLS, '--model', 'hash', '--json'], own);
    expect(JSON.parse(again.stdout)).toMatchObject({ skills: 6, added: 0, updated: 0, removed: 0, unchanged: 6, embedded: 0 });
  });

  it('builds with progress on stderr, then refreshes only what changed', async () => {
    const skills = copyFixture(SKILLS);
    dirs.push(skills);
    const base = ['index', '--skills-dir', skills, '--model', 'hash'];

    const first = await runCli(base, cache);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^indexed 6 skills: 6 added, 0 updated, 0 removed, 0 unchanged; 6 embedded \(\d+ ms\)\n$/);
    expect(first.stderr.split('\n')).toEqual(expect.arrayContaining(['indexing 0/6 skills', expect.stringMatching(/^indexing 6\/6 skills \([\d.]+\/s\)$/)]));
    expect(first.stderr).toContain(`index: saved in ${path.join(cache, 'store.sqlite')} (`);

    const second = await runCli(base, cache);
    expect(second.stdout).toMatch(/^indexed 6 skills: 0 added, 0 updated, 0 removed, 6 unchanged \(\d+ ms\)\n$/);
    expect(second.stderr).not.toContain('indexing');

    writeFileSync(path.join(skills, 'git-bisect', 'SKILL.md'), '---\nname: git-bisect\ndescription: Bisect history to find a bad commit\n---\n');
    rmSync(path.join(skills, 'release-notes'), { recursive: true });
    const third = await runCli([...base, '--json'], cache);
    const summary = JSON.parse(third.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({ skills: 5, added: 0, updated: 1, removed: 1, unchanged: 4, embedded: 1, model: 'hash-256' });
    expect(third.stderr).toMatch(/^indexing 0\/1 skills\nindexing 1\/1 skills \([\d.]+\/s\)\n$/);
    // --quiet: no progress at all.
    writeFileSync(path.join(skills, 'git-bisect', 'SKILL.md'), '---\nname: git-bisect\ndescription: Bisect history to find the first bad commit\n---\n');
    expect((await runCli([...base, '--json', '--quiet'], cache)).stderr).toBe('');
    // Each catalog the command indexed is saved in the store for cold processes.
    const store = SqliteStore.open(path.join(cache, 'store.sqlite'));
    expect(store.database.prepare('SELECT size FROM catalogs ORDER BY id').pluck().all()).toEqual([6, 5, 5]);
    store.close();
  });

  it('says how many vectors it embedded and how many the store held already (a library engine embedded them, saved no catalog)', async () => {
    const shared = tempDir();
    dirs.push(shared);
    const [{ SkillSearchEngine }, { SkillCatalog }, { resolveEmbedder }] = await Promise.all([
      import('../../src/search/engine.js'),
      import('../../src/load/catalog.js'),
      import('../../src/embed/resolve.js'),
    ]);
    const engine = await SkillSearchEngine.open({ embedder: resolveEmbedder('hash'), store: path.join(shared, 'store.sqlite') });
    const { skills } = await new SkillCatalog({ skillsDirs: [SKILLS] }).get();
    expect(await engine.sync(skills)).toMatchObject({ added: 6, embedded: 6 });
    await engine.close();
    const result = await runCli(['index', '--skills-dir', SKILLS, '--model', 'hash', '--quiet'], shared);
    expect(result.stdout).toMatch(/^indexed 6 skills: 6 added, 0 updated, 0 removed, 0 unchanged; 0 embedded, 6 from the store \(\d+ ms\)\n$/);
    expect(JSON.parse((await runCli(['index', '--skills-dir', SKILLS, '--model', 'hash', '--json'], shared)).stdout)).toMatchObject({ added: 0, embedded: 0 });
  });

  it('indexes the good skills of a folder with broken ones, and points at validate', async () => {
    const result = await runCli(['index', '--skills-dir', BROKEN, '--model', 'hash'], cache);
    expect(result.code).toBe(0);
    // no-description/SKILL.md loads by its first paragraph (a warning); bad-yaml does not load.
    expect(result.stdout).toMatch(/^indexed 2 skills: /);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe('skill-search: 1 skill file could not be loaded; run `skill-search validate`');
  });

  it('keeps one index per catalog and model', async () => {
    const a = await runCli(['index', '--skills-dir', SKILLS, '--model', 'hash', '--json'], cache);
    const b = await runCli(['index', '--skills-dir', SKILLS, '--model', 'hash:64', '--json'], cache);
    const dirA = (JSON.parse(a.stdout) as { indexDir: string }).indexDir;
    const dirB = (JSON.parse(b.stdout) as { indexDir: string }).indexDir;
    expect(dirA).not.toBe(dirB);
    expect(path.dirname(dirA)).toBe(cache);
  });

  it('honours XDG_CACHE_HOME when SKILL_SEARCH_CACHE_DIR is unset', async () => {
    const xdg = tempDir();
    dirs.push(xdg);
    const result = await runCli(['index', '--skills-dir', SKILLS, '--model', 'hash', '--json'], cache, {
      env: { SKILL_SEARCH_CACHE_DIR: undefined, XDG_CACHE_HOME: xdg },
    });
    expect(path.dirname((JSON.parse(result.stdout) as { indexDir: string }).indexDir)).toBe(path.join(xdg, 'skill-search'));
  });

  it('embeds nothing in a second project folder over skills another folder indexed', async () => {
    const home = tempDir();
    dirs.push(home);
    cpSync(SKILLS, path.join(home, '.claude', 'skills'), { recursive: true });
    const [projectA, projectB] = [path.join(home, 'a'), path.join(home, 'b')];
    mkdirSync(projectA);
    mkdirSync(projectB);
    const index = async (project: string) =>
      JSON.parse((await runCli(['index', '--cwd', project, '--model', 'hash', '--no-demo', '--json'], home)).stdout) as Record<string, unknown>;
    const a = await index(projectA);
    const b = await index(projectB);
    expect(a).toMatchObject({ skills: 6, added: 6, embedded: 6 });
    // The same catalog, saved by the first folder: nothing changed, nothing embedded.
    expect(b).toMatchObject({ skills: 6, added: 0, unchanged: 6, embedded: 0 });
    expect(b['indexDir']).not.toBe(a['indexDir']);
  });

  it('removes an index folder of the layout before the store, with one line, and keeps what else the folder holds', async () => {
    const root = tempDir();
    dirs.push(root);
    const indexDir = path.join(root, 'index');
    mkdirSync(indexDir);
    const old = ['index.json', 'vector-data-0123456789abcdef.bin', 'lexical-0123456789abcdef.log', 'search-fedcba9876543210.bin'];
    for (const file of [...old, 'notes.txt']) writeFileSync(path.join(indexDir, file), 'x');
    const result = await runCli(['index', '--skills-dir', SKILLS, '--model', 'hash', '--quiet', '--index-dir', indexDir], root);
    expect(result.code).toBe(0);
    expect(result.stderr.split('\n')[0]).toBe(`skill-search: removed the index of an older layout from ${indexDir} (indexes are kept in the store now)`);
    expect(readdirSync(indexDir)).toEqual(['notes.txt']);
    const again = await runCli(['index', '--skills-dir', SKILLS, '--model', 'hash', '--quiet', '--index-dir', indexDir], root);
    expect(again.stderr).not.toContain('older layout');
  });

  it('exits 1 when there is nothing to index', async () => {
    const empty = tempDir();
    dirs.push(empty);
    const result = await runCli(['index', '--skills-dir', empty, '--model', 'hash'], cache);
    expect(result).toEqual({ code: 1, stdout: '', stderr: `skill-search: no skills found in --skills-dir '${empty}'\n` });
  });
});
