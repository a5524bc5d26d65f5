import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openLiveIndex } from '../../src/cli/context.js';
import type { CliIo } from '../../src/cli/io.js';
import { resolveRetrieval, resolveSources } from '../../src/cli/sources.js';
import { ROOT, SKILLS, copyFixture, removeDir, runCli, tempDir } from './helpers.js';

// `query --json` rounds scores to 4 digits; unrounded here, so drift below that shows too.
vi.mock('../../src/cli/format.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/cli/format.js')>()),
  toJsonHit: (hit: { skill: { name: string }; score: number }) => ({ name: hit.skill.name, score: hit.score }),
}));

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));
const temp = () => {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
};

const QUERIES = [
  'fill a pdf form',
  'find the commit that broke the build',
  'resize images for the web',
  'write release notes',
  'a flaky test in ci',
  'compress scanned pdf images',
];

function writeSkill(root: string, name: string, description: string, body = ''): void {
  mkdirSync(path.join(root, name), { recursive: true });
  writeFileSync(path.join(root, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`);
}

interface JsonHit {
  readonly name: string;
  readonly score: number;
}

async function scores(skills: string, cache: string, mode: string): Promise<JsonHit[][]> {
  const answers: JsonHit[][] = [];
  for (const query of QUERIES) {
    const result = await runCli(
      [
        'query',
        '--skills-dir',
        skills,
        '--model',
        'hash',
        '--index-dir',
        path.join(cache, 'index'),
        '--mode',
        mode,
        '--k',
        '10',
        '--abstain',
        'off',
        '--json',
        query,
      ],
      cache,
    );
    expect(result.code).toBe(0);
    answers.push((JSON.parse(result.stdout) as { hits: JsonHit[] }).hits);
  }
  return answers;
}

describe('an index kept up to date scores like a clean build', () => {
  it('after adds, edits and removals through `index`, lexical and hybrid scores match a clean build to 1e-9', async () => {
    const skills = copyFixture(SKILLS);
    dirs.push(skills);
    const cache = temp();
    const index = async () =>
      expect((await runCli(['index', '--skills-dir', skills, '--model', 'hash', '--index-dir', path.join(cache, 'index')], cache)).code).toBe(0);
    await index();
    await scores(skills, cache, 'lexical');
    writeSkill(skills, 'pdf-compress', 'Compress scanned PDF files and the images inside them', 'Downsample images, then re-save the pdf.');
    writeSkill(skills, 'web-images', 'Resize and compress images for the web', 'Pick the width first, then the format.');
    await index();
    writeSkill(
      skills,
      'pdf-forms',
      'Fill in PDF forms and flatten them',
      'List the fields, fill them, read them back. A longer body than before, about pdf forms and fields.',
    );
    rmSync(path.join(skills, 'release-notes'), { recursive: true });
    await index();
    await scores(skills, cache, 'hybrid');
    rmSync(path.join(skills, 'web-images'), { recursive: true });
    writeSkill(skills, 'git-bisect', 'Find the commit that broke the build with git bisect', 'Mark a good and a bad commit, then test each step.');
    // No `index` for the last change: the first query below applies it to the saved index and searches in the same process.

    const clean = temp();
    for (const mode of ['lexical', 'hybrid']) {
      const got = await scores(skills, cache, mode);
      const want = await scores(skills, clean, mode);
      expect(got.map((hits) => hits.map((hit) => hit.name))).toEqual(want.map((hits) => hits.map((hit) => hit.name)));
      got.forEach((hits, q) =>
        hits.forEach((hit, h) => expect(Math.abs(hit.score - want[q]![h]!.score), `${mode} '${QUERIES[q]}' ${hit.name}`).toBeLessThan(1e-9)),
      );
    }
  }, 120_000);

  it('one live index updated in place, as `watch` keeps it, scores like a clean build to 1e-9', async () => {
    const skills = copyFixture(SKILLS);
    dirs.push(skills);
    const cache = temp();
    const sink = { write: () => true };
    const io: CliIo = { stdout: sink, stderr: sink, readStdin: async () => '', env: { HOME: cache, SKILL_SEARCH_CACHE_DIR: cache }, cwd: ROOT };
    const values = { 'skills-dir': [skills], model: 'hash', 'index-dir': path.join(cache, 'index') };
    const live = await openLiveIndex(resolveSources(values, io), resolveRetrieval(values, io, 10), io);
    const search = async (mode: 'lexical' | 'hybrid') => {
      // What `watch`'s file watcher does on a change: the next search rescans and syncs.
      live.catalog.clear();
      const answers: JsonHit[][] = [];
      for (const query of QUERIES)
        answers.push((await live.search(query, { mode, k: 10, abstain: false })).map((hit) => ({ name: hit.skill.name, score: hit.score })));
      return answers;
    };
    try {
      await search('hybrid');
      writeSkill(skills, 'pdf-compress', 'Compress scanned PDF files and the images inside them', 'Downsample images, then re-save the pdf.');
      await search('lexical');
      writeSkill(skills, 'pdf-forms', 'Fill in PDF forms and flatten them', 'List the fields, fill them, read them back.');
      rmSync(path.join(skills, 'release-notes'), { recursive: true });
      await search('hybrid');
      rmSync(path.join(skills, 'pdf-compress'), { recursive: true });
      writeSkill(skills, 'git-bisect', 'Find the commit that broke the build with git bisect', 'Mark a good and a bad commit, then test each step.');
      const clean = temp();
      for (const mode of ['lexical', 'hybrid'] as const) {
        const got = await search(mode);
        const want = await scores(skills, clean, mode);
        expect(got.map((hits) => hits.map((hit) => hit.name))).toEqual(want.map((hits) => hits.map((hit) => hit.name)));
        got.forEach((hits, q) =>
          hits.forEach((hit, h) => expect(Math.abs(hit.score - want[q]![h]!.score), `${mode} '${QUERIES[q]}' ${hit.name}`).toBeLessThan(1e-9)),
        );
      }
    } finally {
      await live.close();
    }
  }, 120_000);
});
