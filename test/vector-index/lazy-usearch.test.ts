import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { installedUsearch } from '../../src/vector-index/label-graph.js';
import { SKILLS, removeDir, spawnCli, tempDir } from '../cli/helpers.js';

const cache = tempDir('skill-search-lazy-usearch-');
afterAll(() => removeDir(cache));

/** Loaded before the CLI: writes the native modules the process opened to DLOPEN_LOG at exit. */
const RECORDER = `import { writeFileSync } from 'node:fs';
const opened = [];
const dlopen = process.dlopen;
process.dlopen = function (module, file, ...rest) {
  opened.push(file);
  return dlopen.call(this, module, file, ...rest);
};
process.on('exit', () => writeFileSync(process.env.DLOPEN_LOG, opened.join('\\n')));
`;

describe('usearch is loaded with the first graph only', () => {
  it('a hook over a catalog too small for a graph (an exact scan) never opens its native module', async () => {
    const recorder = path.join(cache, 'recorder.mjs');
    const log = path.join(cache, 'dlopen.log');
    writeFileSync(recorder, RECORDER);
    const stdin = JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: 'fill in a pdf form', transcript_path: '/dev/null', cwd: cache });
    const flags = ['--skills-dir', SKILLS, '--model', 'hash', '--index-dir', path.join(cache, 'index')];
    const env = { DLOPEN_LOG: log, NODE_OPTIONS: `--import ${pathToFileURL(recorder).href}` };
    expect((await spawnCli(['index', '--quiet', ...flags], cache, { env })).code).toBe(0);
    const result = await spawnCli(['hook', 'claude-code', ...flags], cache, { stdin, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('additionalContext');
    const opened = readFileSync(log, 'utf8').split('\n');
    // The recorder sees native modules: the store's SQLite is one.
    expect(opened.some((file) => file.includes('better_sqlite3'))).toBe(true);
    expect(opened.filter((file) => file.includes('usearch'))).toEqual([]);
  }, 60_000);
});

describe('installedUsearch', () => {
  it('names the file Node resolves for `require("usearch")`, so requiring it by path loads the same module', () => {
    const entry = installedUsearch()?.entry;
    expect(entry).toBe(createRequire(import.meta.url).resolve('usearch'));
    expect(path.isAbsolute(entry!)).toBe(true);
  });
});
