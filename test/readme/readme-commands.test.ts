/**
 * Every shell block of the README runs, in order, as a reader would type it: a fresh HOME,
 * `skill-search` on PATH (this clone's built bin), the reader's shell. A block that needs what a
 * test cannot have here (the npm registry, a host CLI, this suite itself) is marked in the
 * README with `<!-- not run: why -->` on the line before it, and is listed below so that a new
 * mark cannot slip in unseen.
 */
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, SKILLS, removeDir, tempDir } from '../cli/helpers.js';

interface Block {
  readonly line: number;
  readonly script: string;
  readonly notRun?: string;
}

/** The README's ```sh blocks with the line they start on and their `not run` mark, if any. */
function shellBlocks(readme: string): Block[] {
  const lines = readme.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```sh') continue;
    const end = lines.indexOf('```', i + 1);
    const mark = /^<!-- not run: (.+) -->$/.exec(lines[i - 1] ?? '')?.[1];
    blocks.push({ line: i + 1, script: lines.slice(i + 1, end).join('\n'), ...(mark ? { notRun: mark } : {}) });
    i = end;
  }
  return blocks;
}

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const BLOCKS = shellBlocks(README);
const built = existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'));

describe('README shell blocks', () => {
  it('are marked "not run" only where a test cannot run them, each with its reason', () => {
    expect(BLOCKS.filter((block) => block.notRun).map((block) => block.notRun)).toEqual([
      'installs from the npm registry and runs this suite; CI runs exactly this',
      'installs globally; the test puts the bin on PATH instead',
      'development commands; CI runs them',
    ]);
    expect(BLOCKS.filter((block) => !block.notRun).length).toBeGreaterThanOrEqual(6);
  });
});

describe.skipIf(!built)('README shell blocks, run as written', () => {
  const home = tempDir('skill-search-readme-');
  const work = path.join(home, 'work');
  const bin = path.join(home, 'bin');
  const results = new Map<number, Ran>();
  const children: number[] = [];

  /** One block in bash, as the reader's shell; background jobs are killed with the process group at the end. */
  function run(block: Block): Promise<Ran> {
    return new Promise((resolve) => {
      const child = spawn('bash', ['-euo', 'pipefail', '-c', block.script], {
        cwd: work,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
          HOME: home,
          ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
        },
      });
      if (child.pid !== undefined) children.push(child.pid);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  beforeAll(async () => {
    mkdirSync(bin, { recursive: true });
    mkdirSync(work, { recursive: true });
    const shim = path.join(bin, 'skill-search');
    writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${path.join(ROOT, 'bin', 'skill-search.js')}" "$@"\n`);
    chmodSync(shim, 0o755);
    // The reader's own folder of skills that `library add ./team-skills` copies in.
    cpSync(path.join(SKILLS, 'git-bisect'), path.join(work, 'team-skills', 'git-bisect'), { recursive: true });
    for (const block of BLOCKS) if (!block.notRun) results.set(block.line, await run(block));
  }, 240_000);

  /** Sends `signal` to a block's process group; false once the group is gone. */
  function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
    try {
      process.kill(-pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  afterAll(async () => {
    // The README's `nohup skill-search watch &` still runs, writing under HOME: stop it and wait
    // until it is gone before the folder is removed.
    for (const pid of children) signalGroup(pid, 'SIGTERM');
    const until = Date.now() + 15_000;
    while (children.some((pid) => signalGroup(pid, 0)) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    for (const pid of children) signalGroup(pid, 'SIGKILL');
    removeDir(home);
  }, 30_000);

  it('every block exits 0', () => {
    const failed = [...results].filter(([, ran]) => ran.code !== 0).map(([line, ran]) => `README.md:${line}: exit ${ran.code}: ${ran.stderr.trim()}`);
    expect(failed).toEqual([]);
  });

  it('the first skill is found by validate and suggested first for its request', () => {
    const block = BLOCKS.find((candidate) => candidate.script.includes('release-notes/SKILL.md'));
    const ran = block && results.get(block.line);
    expect(ran?.stdout).toMatch(/^\d+ skills? loaded; 0 errors/m);
    expect(ran?.stdout).toMatch(/^1\. {2}release-notes {2}/m);
    // The score the README prints under the block, to its first digit (`0.7…`).
    const printed = /^1\. {2}release-notes {2}(\d\.\d)…/m.exec(README.slice(README.indexOf(block?.script ?? '\0')))?.[1];
    expect(/^1\. {2}release-notes {2}(\d\.\d)/m.exec(ran?.stdout ?? '')?.[1]).toBe(printed);
  });

  it("the hook check prints Claude Code's hook JSON with the new skill", () => {
    const block = BLOCKS.find((candidate) => candidate.script.includes('| skill-search hook claude-code'));
    const ran = block && results.get(block.line);
    const output = JSON.parse(ran?.stdout.split('\n')[0] ?? 'null') as { hookSpecificOutput?: { additionalContext?: string } };
    expect(output.hookSpecificOutput?.additionalContext).toContain('- release-notes: ');
  });
});
