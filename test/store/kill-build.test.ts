import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../cli/helpers.js';
import { useTempDirs } from '../support/temp-dirs.js';

const temp = useTempDirs('kill-build');
/** Builds killed: every one at another point of its run (startup, scan, embedding, saving). */
const KILLS = 20;
const SKILLS = 400;
const QUERIES = ['rotate the logs of service 17', 'plan a budget for team 240', 'nothing like any skill at all', 'translate subtitles of episode 3'];

const TOPICS = ['rotate the logs of', 'plan a budget for', 'translate subtitles of', 'benchmark the cache of', 'audit the permissions of'];
const THINGS = ['service', 'team', 'episode', 'cluster', 'repository'];

/** A skills folder of `count` distinct skills. */
function skillsFolder(dir: string, count: number): void {
  for (let i = 0; i < count; i += 1) {
    const name = `skill-${i}`;
    mkdirSync(path.join(dir, name), { recursive: true });
    const what = `${TOPICS[i % TOPICS.length]} ${THINGS[Math.floor(i / TOPICS.length) % THINGS.length]} ${i}`;
    writeFileSync(path.join(dir, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${what[0]!.toUpperCase()}${what.slice(1)}\n---\nSteps for ${what}.\n`);
  }
}

function start(argv: readonly string[], cache: string): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), ...argv], {
    cwd: ROOT,
    env: { ...process.env, HOME: cache, SKILL_SEARCH_CACHE_DIR: cache },
    stdio: 'ignore',
  });
}

/** Every query's `--json` answer, without its timing. */
async function answers(sources: readonly string[], cache: string, queries: readonly string[] = QUERIES): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const query of queries) {
    const result = await runCli(['query', '--json', '--quiet', ...sources, query], cache);
    expect([result.code, result.stderr]).toEqual([0, '']);
    const { tookMs: _took, ...answer } = JSON.parse(result.stdout) as { tookMs: number };
    out.push(answer);
  }
  return out;
}

describe('an index build killed with SIGKILL', () => {
  it(`${KILLS} times at different points, with readers searching meanwhile: every read answers and the next search equals a clean build`, async () => {
    const root = temp();
    const skills = path.join(root, 'skills');
    skillsFolder(skills, SKILLS);
    const clean = await answers(['--skills-dir', skills, '--model', 'hash', '--index-dir', path.join(root, 'clean', 'index')], path.join(root, 'clean'));
    expect(JSON.stringify(clean)).toContain('skill-');

    const cache = path.join(root, 'cache');
    const sources = ['--skills-dir', skills, '--model', 'hash', '--index-dir', path.join(cache, 'index')];
    for (let kill = 0; kill < KILLS; kill += 1) {
      // Each build starts from what the last killed one left (a new skill makes it write again).
      const extra = path.join(skills, `added-${kill}`);
      mkdirSync(extra);
      writeFileSync(path.join(extra, 'SKILL.md'), `---\nname: added-${kill}\ndescription: Added before build ${kill}\n---\n`);
      const build = start(['index', ...sources], cache);
      const exited = new Promise((resolve) => build.on('exit', resolve));
      await new Promise((resolve) => setTimeout(resolve, 150 + kill * 60));
      // A reader during the write never fails (it answers from the old index or builds in memory).
      const read = await runCli(['query', '--json', ...sources, QUERIES[kill % QUERIES.length]!], cache);
      expect(read.code).toBe(0);
      build.kill('SIGKILL');
      await exited;
    }
    // Back to the clean build's catalog: the next search must give its answers exactly.
    for (let kill = 0; kill < KILLS; kill += 1) rmSync(path.join(skills, `added-${kill}`), { recursive: true });
    expect(await answers(sources, cache)).toEqual(clean);
  }, 300_000);
});

describe('a changed catalog assembled by a cold query killed with SIGKILL', () => {
  it('at different points, over edits in place and a skill added: the next search equals a clean build', async () => {
    const root = temp();
    const skills = path.join(root, 'skills');
    skillsFolder(skills, SKILLS);
    const cache = path.join(root, 'cache');
    const sources = ['--skills-dir', skills, '--model', 'hash', '--index-dir', path.join(cache, 'index')];
    expect((await runCli(['index', '--quiet', ...sources], cache)).code).toBe(0);
    const kills = 8;
    for (let kill = 0; kill < kills; kill += 1) {
      // One description edited in place (an overlay), every third round a skill added too (members copied).
      const name = `skill-${(kill * 37) % SKILLS}`;
      writeFileSync(path.join(skills, name, 'SKILL.md'), `---\nname: ${name}\ndescription: Edited in round ${kill}\n---\nSteps.\n`);
      if (kill % 3 === 2) {
        mkdirSync(path.join(skills, `added-${kill}`));
        writeFileSync(path.join(skills, `added-${kill}`, 'SKILL.md'), `---\nname: added-${kill}\ndescription: Added in round ${kill}\n---\n`);
      }
      const query = start(['query', '--quiet', ...sources, QUERIES[kill % QUERIES.length]!], cache);
      const exited = new Promise((resolve) => query.on('exit', resolve));
      await new Promise((resolve) => setTimeout(resolve, 300 + kill * 150));
      query.kill('SIGKILL');
      await exited;
    }
    // Every query, the one every skill's name matches alike too: ties are listed by catalog position.
    const clean = await answers(['--skills-dir', skills, '--model', 'hash', '--index-dir', path.join(root, 'clean', 'index')], path.join(root, 'clean'));
    expect(JSON.stringify(clean)).toContain('skill-');
    expect(await answers(sources, cache)).toEqual(clean);
  }, 300_000);
});

describe('a changed tools file written from its line table, killed with SIGKILL', () => {
  // `index` is the writer a hook hands an edit to (it searched the edit held in memory).
  it.each(['query', 'index'])(
    'by a cold %s at different points, over edits in place, lines moved and added: the next search equals a clean build',
    async (command) => {
      const root = temp();
      const tools = path.join(root, 'tools.jsonl');
      const line = (i: number, what = `${TOPICS[i % TOPICS.length]} ${THINGS[Math.floor(i / TOPICS.length) % THINGS.length]} ${i}`): string =>
        JSON.stringify({ id: `tool-${i}`, name: `tool-${i}`, description: what });
      const lines = Array.from({ length: SKILLS }, (_, i) => line(i));
      writeFileSync(tools, lines.join('\n'));
      const cache = path.join(root, 'cache');
      const sources = ['--tools', tools, '--model', 'hash', '--no-demo', '--cwd', root];
      expect((await runCli(['index', '--quiet', ...sources], cache)).code).toBe(0);
      for (let kill = 0; kill < 8; kill += 1) {
        const at = (kill * 37) % lines.length;
        lines[at] = line(at, `Edited in round ${kill}`);
        if (kill % 3 === 2) {
          lines.splice((kill * 53) % lines.length, 0, line(SKILLS + kill, `Added in round ${kill}`));
          lines.push(...lines.splice((kill * 11) % lines.length, 1));
        }
        writeFileSync(tools, lines.join('\n'));
        const query = start(command === 'query' ? ['query', '--quiet', ...sources, QUERIES[kill % QUERIES.length]!] : ['index', '--quiet', ...sources], cache);
        const exited = new Promise((resolve) => query.on('exit', resolve));
        await new Promise((resolve) => setTimeout(resolve, 300 + kill * 150));
        query.kill('SIGKILL');
        await exited;
      }
      const clean = await answers(sources, path.join(root, 'clean'));
      expect(JSON.stringify(clean)).toContain('tool-');
      expect(await answers(sources, cache)).toEqual(clean);
    },
    300_000,
  );
});
