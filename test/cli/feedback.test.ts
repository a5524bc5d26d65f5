import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';
import { ROOT, SKILLS, removeDir, runCli, tempDir } from './helpers.js';

const cache = tempDir();
afterAll(() => removeDir(cache));

/** `query` in-process with stderr that says whether it is a terminal. */
async function query(indexDir: string, isTTY: boolean): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const io: CliIo = {
    stdout: { write: () => true },
    stderr: Object.assign({ write: (chunk: string) => (stderr += chunk) }, isTTY ? { isTTY: true } : {}),
    readStdin: async () => '',
    env: { HOME: cache, SKILL_SEARCH_CACHE_DIR: cache },
    cwd: ROOT,
  };
  const code = await main(['query', '--skills-dir', SKILLS, '--model', 'hash', '--index-dir', indexDir, 'fill a pdf form'], io);
  return { code, stderr };
}

describe('the first query on a cold index', () => {
  it('says nothing when the build takes less than a second, on a terminal or not (progress-bar.test.ts covers a longer one)', async () => {
    for (const [folder, isTTY] of [
      ['tty', true],
      ['pipe', false],
    ] as const) {
      const started = performance.now();
      const result = await query(path.join(cache, folder), isTTY);
      // A loaded machine can stretch even this six-skill build past the second: then only the
      // progress line may appear (or nothing, for a build just under it), never anything else.
      const quick = performance.now() - started < 900;
      expect(result.code).toBe(0);
      if (quick) expect(result.stderr).toBe('');
      else if (result.stderr !== '') expect(result.stderr).toContain('6/6');
      expect(result.stderr).not.toContain('skill-search:');
    }
  });
});

describe('nothing found says why', () => {
  it('names how many entries were skipped and the first reason', async () => {
    const tools = path.join(cache, 'tools.jsonl');
    writeFileSync(tools, '{"name":"x"}\nnot json\n');
    for (const command of ['query', 'index']) {
      const result = await runCli([command, '--tools', tools, '--model', 'hash', ...(command === 'query' ? ['pdf'] : [])], cache);
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: `skill-search: no skills found in --tools '${tools}'; 2 entries could not be loaded, the first: ${tools}:1: \`description\` is missing (run \`skill-search validate\` for all)\n`,
      });
    }
  });
});

describe('repository hygiene', () => {
  it('every npm script that runs a file names one that exists', () => {
    const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    for (const [name, command] of Object.entries(scripts)) {
      for (const file of command.match(/\S+\.(?:ts|js|mjs)\b/g) ?? []) {
        expect(existsSync(path.join(ROOT, file)), `npm run ${name}: ${file}`).toBe(true);
      }
    }
  });

  it("make-tiny-model's documented output folder is ignored by git", () => {
    const ignored = readFileSync(path.join(ROOT, '.gitignore'), 'utf8').split('\n');
    expect(ignored).toContain('models/tiny/');
  });

  it("the README's background watch command creates its log folder first", () => {
    const lines = readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n');
    const nohup = lines.findIndex((text) => text.startsWith('nohup skill-search watch > ~/.cache/skill-search/'));
    expect(nohup).toBeGreaterThan(0);
    // Private (-m 700): the log and the cache name projects.
    expect(lines[nohup - 1]).toMatch(/^mkdir -m 700 -p ~\/\.cache\/skill-search\b/);
  });
});
