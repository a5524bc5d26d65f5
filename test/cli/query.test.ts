import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SKILLS, TOOLS, copyFixture, removeDir, runCli, tempDir } from './helpers.js';

const cache = tempDir();
const dirs = [cache];
afterAll(() => dirs.forEach(removeDir));

const HASH = ['--model', 'hash'];

describe('query (hash embedder)', () => {
  it('ranks the matching skill first: rank, name, score, source, path', async () => {
    // Quiet: a loaded machine can stretch the first build past the second after which progress shows.
    const result = await runCli(['query', '--skills-dir', SKILLS, ...HASH, '--quiet', 'fill in the fields of a PDF form'], cache);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const first = result.stdout.split('\n')[0] ?? '';
    expect(first).toMatch(new RegExp(`^1\\.  pdf-forms +\\d\\.\\d{3}  skills  ${path.join(SKILLS, 'pdf-forms', 'SKILL.md').replace(/[.]/g, '\\.')}$`));
  });

  it('--explain prints a block under each hit, and why nothing was shown for an empty answer', async () => {
    const shown = await runCli(['query', '--skills-dir', SKILLS, ...HASH, '--explain', '--k', '1', 'fill in the fields of a PDF form'], cache);
    const lines = shown.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^1\. {2}pdf-forms +\d\.\d{3} {2}skills {2}/);
    expect(lines.slice(1).map((text) => text.replace(/\d+\.\d+/g, 'N'))).toEqual([
      '    matched: name pdf, form; whenToUse fillabl, field, pdf, form; description fill, field, pdf, form; body fill, field, pdf, form',
      "    lexical: BM25 N, 100% of the message's words",
      '    dense: cosine N, centred N',
      '    relevance: order N; P(answerable) N × P(fits) N; shown: N ≥ threshold N',
    ]);
    const none = await runCli(['query', '--skills-dir', SKILLS, ...HASH, '--explain', 'bake a sourdough loaf tonight'], cache);
    expect(none.stdout).toMatch(
      /^No skill fits this message \(searched 6 skills, hybrid\)\.\n {4}P\(answerable\) \d\.\d{3}; best candidate [\w-]+: P\(fits\) \d\.\d{3}, score \d\.\d{3} < threshold 0\.\d{3}\n$/,
    );
    const json = JSON.parse(
      (await runCli(['query', '--skills-dir', SKILLS, ...HASH, '--explain', '--json', 'bake a sourdough loaf tonight'], cache)).stdout,
    ) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(['query', 'hits', 'tookMs', 'nothingShown']);
    expect(Object.keys(json.nothingShown as object)).toEqual(['answerable', 'threshold', 'best']);
    const plain = JSON.parse((await runCli(['query', '--skills-dir', SKILLS, ...HASH, '--json', 'fill in the fields of a PDF form'], cache)).stdout) as {
      hits: object[];
    };
    for (const hit of plain.hits) expect(Object.keys(hit)).toEqual(['name', 'source', 'score', 'path']);
  });

  it('--explain says a hit under the threshold is shown beside the first, not "below"', async () => {
    // Two requests in one: the second skill scores under a threshold of 0.5 but close to the first.
    const message = 'migrate the database and write release notes';
    const shown = await runCli(['query', '--skills-dir', SKILLS, ...HASH, '--explain', '--abstain', '0.5', '--k', '2', message], cache);
    const verdicts = shown.stdout.split('\n').filter((text) => text.startsWith('    relevance: '));
    expect(verdicts.map((text) => text.replace(/^.*; (shown[^:]*): \d\.\d+ ([<≥]) threshold 0\.500$/, '$1 $2'))).toEqual([
      'shown ≥',
      'shown beside the first <',
    ]);
  });

  it('a message that names a skill gets that skill alone; with --abstain off the ranked list follows it', async () => {
    const message = 'use the git-bisect skill to fill in a PDF form';
    const named = JSON.parse((await runCli(['query', '--skills-dir', SKILLS, ...HASH, '--json', message], cache)).stdout) as { hits: { name: string }[] };
    expect(named.hits.map((hit) => hit.name)).toEqual(['git-bisect']);
    const off = JSON.parse((await runCli(['query', '--skills-dir', SKILLS, ...HASH, '--json', '--abstain', 'off', '--k', '3', message], cache)).stdout) as {
      hits: { name: string }[];
    };
    expect(off.hits.map((hit) => hit.name)).toEqual(['git-bisect', 'pdf-forms', expect.any(String)]);
  });

  it('joins several words into one message', async () => {
    const result = await runCli(['query', '--skills-dir', SKILLS, ...HASH, '--json', 'git', 'bisect', 'regression'], cache);
    const parsed = JSON.parse(result.stdout) as { query: string; hits: { name: string }[] };
    expect(parsed.query).toBe('git bisect regression');
    expect(parsed.hits[0]?.name).toBe('git-bisect');
  });

  it('--json prints exactly {query, hits:[{name, source, score, path}], tookMs}', async () => {
    const result = await runCli(
      ['query', '--skills-dir', SKILLS, '--tools', TOOLS, ...HASH, '--mode', 'lexical', '--json', 'convert euros to dollars currency'],
      cache,
    );
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['query', 'hits', 'tookMs']);
    expect(parsed.query).toBe('convert euros to dollars currency');
    expect(typeof parsed.tookMs).toBe('number');
    const hits = parsed.hits as Record<string, unknown>[];
    expect(hits.length).toBeGreaterThan(0);
    for (const hit of hits) expect(Object.keys(hit)).toEqual(['name', 'source', 'score', 'path']);
    expect(hits[0]).toMatchObject({ name: 'currency-convert', source: 'skills' });
  });

  it('says "1 skill" when the catalog holds one', async () => {
    const dir = tempDir();
    try {
      const tools = path.join(dir, 'one.jsonl');
      writeFileSync(tools, '{"id":"t1","name":"currency-convert","description":"Convert an amount between two currencies"}\n');
      const text = await runCli(['query', '--tools', tools, ...HASH, 'bake a sourdough loaf tonight'], cache);
      expect(text).toEqual({ code: 0, stdout: 'No skill fits this message (searched 1 skill, hybrid).\n', stderr: '' });
    } finally {
      removeDir(dir);
    }
  });

  it('shows a skill closed to the model with the host rule that closes it', async () => {
    const dir = tempDir();
    dirs.push(dir);
    mkdirSync(path.join(dir, 'deploy-staging'));
    writeFileSync(
      path.join(dir, 'deploy-staging', 'SKILL.md'),
      '---\nname: deploy-staging\ndescription: Deploy the current branch to staging\ndisable-model-invocation: true\n---\nRun the deploy.\n',
    );
    const result = await runCli(['query', '--skills-dir', dir, ...HASH, 'use the deploy-staging skill'], cache);
    expect(result.stdout.split('\n').slice(1)).toEqual(['    never offered to the model; invoked by its name only (disable-model-invocation: true)', '']);
    expect(result.stdout).toMatch(/^1\. {2}deploy-staging {2}1\.000 {2}skills {2}/);
  });

  it('--k caps the number of hits', async () => {
    const result = await runCli(['query', '--skills-dir', SKILLS, ...HASH, '--mode', 'dense', '--k', '2', '--json', 'tests images pdf git sql release'], cache);
    expect((JSON.parse(result.stdout) as { hits: unknown[] }).hits.length).toBeLessThanOrEqual(2);
  });

  it('says so, and exits 0, when nothing fits', async () => {
    const text = await runCli(['query', '--skills-dir', SKILLS, ...HASH, 'bake a sourdough loaf tonight'], cache);
    expect(text).toEqual({ code: 0, stdout: 'No skill fits this message (searched 6 skills, hybrid).\n', stderr: '' });
    const json = await runCli(['query', '--skills-dir', SKILLS, ...HASH, '--json', 'bake a sourdough loaf tonight'], cache);
    expect((JSON.parse(json.stdout) as { hits: unknown[] }).hits).toEqual([]);
  });

  it('exits 1 naming the folder when there is nothing to search', async () => {
    const empty = tempDir();
    dirs.push(empty);
    const result = await runCli(['query', '--skills-dir', empty, ...HASH, 'anything'], cache);
    expect(result).toEqual({ code: 1, stdout: '', stderr: `skill-search: no skills found in --skills-dir '${empty}'\n` });
  });

  it('exits 1 for an unknown model', async () => {
    const result = await runCli(['query', '--skills-dir', SKILLS, '--model', 'no-such-model', 'x'], cache);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^skill-search: model "no-such-model" not found: .*\n$/);
    expect(result.stderr.split('\n')).toHaveLength(2);
  });

  it('uses the default sources of --cwd without --skills-dir', async () => {
    const project = tempDir();
    dirs.push(project);
    mkdirSync(path.join(project, '.claude', 'skills', 'kiln-schedule'), { recursive: true });
    writeFileSync(
      path.join(project, '.claude', 'skills', 'kiln-schedule', 'SKILL.md'),
      '---\ndescription: Plan a pottery kiln firing schedule with cone temperatures\n---\nSteps.\n',
    );
    const result = await runCli(['query', '--cwd', project, ...HASH, '--json', 'pottery kiln firing schedule'], cache);
    expect(result.code).toBe(0);
    const hits = (JSON.parse(result.stdout) as { hits: { name: string; path: string }[] }).hits;
    expect(hits[0]).toMatchObject({ name: 'kiln-schedule', path: path.join(project, '.claude', 'skills', 'kiln-schedule', 'SKILL.md') });
  });

  it('answers from the persisted index and picks up an edited skill', async () => {
    const skills = copyFixture(SKILLS);
    dirs.push(skills);
    const indexDir = path.join(tempDir(), 'idx');
    dirs.push(path.dirname(indexDir));
    const base = ['--skills-dir', skills, ...HASH, '--index-dir', indexDir];
    // A cache root of its own: the shared store of this file's cache holds these skills already.
    const cache = path.dirname(indexDir);
    const built = await runCli(['index', ...base, '--json'], cache);
    expect(JSON.parse(built.stdout)).toMatchObject({ skills: 6, added: 6, embedded: 6 });

    writeFileSync(path.join(skills, 'release-notes', 'SKILL.md'), '---\nname: release-notes\ndescription: Compose a haiku about the weather\n---\n');
    const result = await runCli(['query', ...base, '--json', 'compose a haiku about the weather'], cache);
    expect((JSON.parse(result.stdout) as { hits: { name: string }[] }).hits[0]?.name).toBe('release-notes');
    const again = await runCli(['index', ...base, '--json'], cache);
    expect(JSON.parse(again.stdout)).toMatchObject({ skills: 6, added: 0, updated: 0, unchanged: 6, embedded: 0 });
  });
});

describe('query (default model)', () => {
  it('finds the skill for a paraphrased request', async () => {
    const result = await runCli(['query', '--skills-dir', SKILLS, '--json', 'shrink these photos so the website loads faster'], cache);
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { hits: { name: string }[] }).hits[0]?.name).toBe('image-resize');
  });
});
