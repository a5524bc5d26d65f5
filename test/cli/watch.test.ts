import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SkillSocketClient } from '../../src/integrations/socket-client.js';
import { SKILLS, copyFixture, removeDir, runCli, tempDir } from './helpers.js';

const cache = tempDir();
const dirs = [cache];
afterAll(() => dirs.forEach(removeDir));

/** Resolves when `predicate` holds for the text written so far. */
function waiter() {
  let text = '';
  const pending: { test: (t: string) => boolean; resolve: () => void }[] = [];
  return {
    onStdout(chunk: string) {
      text += chunk;
      for (const entry of [...pending]) {
        if (entry.test(text)) {
          pending.splice(pending.indexOf(entry), 1);
          entry.resolve();
        }
      }
    },
    text: () => text,
    until(test: (t: string) => boolean): Promise<void> {
      if (test(text)) return Promise.resolve();
      return new Promise((resolve) => pending.push({ test, resolve }));
    },
  };
}

describe('watch', () => {
  it('prints one line per reindex, new problems on stderr, and exits 0 when stopped', async () => {
    const skills = copyFixture(SKILLS);
    dirs.push(skills);
    const controller = new AbortController();
    const out = waiter();
    const err = waiter();
    const run = runCli(['watch', '--skills-dir', skills, '--model', 'hash'], cache, {
      signal: controller.signal,
      onStdout: out.onStdout,
      onStderr: err.onStdout,
    });

    await err.until((t) => t.includes('watching for skill changes'));
    mkdirSync(path.join(skills, 'tea-brewing'));
    writeFileSync(path.join(skills, 'tea-brewing', 'SKILL.md'), '---\ndescription: Brew loose-leaf tea\n---\nSteep.\n');
    await out.until((t) => /reindexed: \+1 ~0 -0 \(\d+ ms\)\n/.test(t));

    rmSync(path.join(skills, 'sql-migrations'), { recursive: true });
    await out.until((t) => /reindexed: \+0 ~0 -1 \(\d+ ms\)\n/.test(t));

    writeFileSync(path.join(skills, 'pdf-forms', 'SKILL.md'), '---\ndescription: [never closed\n---\n');
    await out.until((t) => t.split('\n').length === 5);
    await err.until((t) => t.includes(`${path.join(skills, 'pdf-forms', 'SKILL.md')}: frontmatter is not valid YAML`));

    controller.abort();
    const result = await run;
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').map((l) => l.replace(/\(\d+ ms\)/, '(N ms)'))).toEqual([
      'indexed 6 skills: +6 ~0 -0, 0 unchanged (N ms)',
      'reindexed: +1 ~0 -0 (N ms)',
      'reindexed: +0 ~0 -1 (N ms)',
      'reindexed: +0 ~0 -1 (N ms)',
      '',
    ]);
    expect(result.stderr).toContain(`watching for skill changes; index saved in ${path.join(cache, 'store.sqlite')} (Ctrl-C to stop)`);
  }, 20_000);

  it('serves searches on the index socket while it runs, and removes the socket when stopped', async () => {
    const controller = new AbortController();
    const err = waiter();
    const flags = ['--skills-dir', SKILLS, '--model', 'hash'];
    const run = runCli(['serve', ...flags], cache, { signal: controller.signal, onStderr: err.onStdout });
    await err.until((t) => t.includes('watching for skill changes'));
    const stderr = err.text();
    const where = /^serving searches on (.+)$/m.exec(stderr)?.[1];
    expect(where).toMatch(/server\.sock$/);

    const client = await SkillSocketClient.connect(where!);
    expect(await client.ping()).toMatchObject({ pong: true, skills: 6 });
    client.close();
    const query = await runCli(['query', ...flags, '--json', 'fill in the fields of a PDF form'], cache);
    expect((JSON.parse(query.stdout) as { hits: { name: string }[] }).hits[0]?.name).toBe('pdf-forms');

    controller.abort();
    expect((await run).code).toBe(0);
    expect(existsSync(where!)).toBe(false);
  }, 20_000);

  it('--no-server only watches', async () => {
    const controller = new AbortController();
    const err = waiter();
    const run = runCli(['watch', '--skills-dir', SKILLS, '--model', 'hash', '--no-server'], cache, {
      signal: controller.signal,
      onStderr: err.onStdout,
    });
    await err.until((t) => t.includes('watching for skill changes'));
    controller.abort();
    const result = await run;
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('serving searches');
  }, 20_000);

  it('a catalog loaded from the store, saved before another project’s: nothing changed, not every skill added', async () => {
    const own = tempDir();
    dirs.push(own);
    const other = copyFixture(SKILLS);
    dirs.push(other);
    rmSync(path.join(other, 'pdf-forms'), { recursive: true });
    // This catalog is saved, then another one of the same model (the one saved last).
    expect((await runCli(['index', '--skills-dir', SKILLS, '--model', 'hash'], own)).code).toBe(0);
    expect((await runCli(['index', '--skills-dir', other, '--model', 'hash'], own)).code).toBe(0);
    const controller = new AbortController();
    const err = waiter();
    const run = runCli(['watch', '--skills-dir', SKILLS, '--model', 'hash', '--no-server'], own, { signal: controller.signal, onStderr: err.onStdout });
    await err.until((t) => t.includes('watching for skill changes'));
    controller.abort();
    const result = await run;
    expect(result.stdout.replace(/\(\d+ ms\)/, '(N ms)')).toBe('indexed 6 skills: +0 ~0 -0, 6 unchanged (N ms)\n');
  }, 20_000);
});
