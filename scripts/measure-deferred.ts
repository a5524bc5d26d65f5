/**
 * Deferred skills, measured as a user gets them: a fresh HOME with an empty ~/.claude/skills,
 * the public skill library (../shared/eval/library, read in place, one `--library` per
 * collection) and the installed CLI's own commands, run in-process:
 *   - `skill-search tokens --json`: the always-on listing with every skill listed up front
 *     vs what Claude Code lists when the library is left to search;
 *   - `skill-search hook claude-code` (default model, default 3 s budget) for typical
 *     requests written for this script, each with the library skill(s) that should come up.
 *
 * Usage: npx tsx scripts/measure-deferred.ts [--model NAME] [--mode MODE]
 * Prints a JSON summary and the README table rows. Deterministic apart from timings.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../src/cli/main.js';
import type { CliIo } from '../src/cli/io.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const LIBRARY = process.env.SKILL_SEARCH_EVAL_LIBRARY ?? path.resolve(HERE, '..', '..', 'shared', 'eval', 'library');

/** Skills a user keeps in the always-on listing (config `pin`) in the pinned variant. */
export const PINNED = ['systematic-debugging', 'writing-plans', 'test-driven-development'];

/** Typical requests (our own wording), each with the library skills that answer it. */
export const TYPICAL_REQUESTS: readonly { readonly prompt: string; readonly expected: readonly string[] }[] = [
  { prompt: 'the CI checks on my GitHub pull request are failing, can you fix them', expected: ['gh-fix-ci'] },
  { prompt: 'fuzz this Rust crate to find crashes', expected: ['cargo-fuzz'] },
  { prompt: 'write a semgrep rule that flags every call to eval', expected: ['semgrep-rule-creator', 'semgrep'] },
  { prompt: 'make a seaborn violin plot of these two columns', expected: ['seaborn'] },
  { prompt: 'parse this SMILES string and compute the molecular weight', expected: ['rdkit', 'datamol'] },
  { prompt: 'deploy this Next.js app to Vercel', expected: ['deploy-to-vercel', 'vercel-cli-with-tokens'] },
  { prompt: 'create a Helm chart for our payments service', expected: ['helm-chart-scaffolding'] },
  { prompt: 'set up a GitHub Actions workflow that runs the tests on every push', expected: ['github-actions-templates'] },
  { prompt: 'this test fails one run in ten, help me find the root cause', expected: ['systematic-debugging', 'debugging-strategies'] },
  { prompt: 'build an MCP server that exposes our internal REST API as tools', expected: ['mcp-builder'] },
  { prompt: 'add a Grafana dashboard for request latency and error rate', expected: ['grafana-dashboards'] },
  { prompt: 'migrate this AngularJS app to modern Angular', expected: ['angular-migration'] },
];

function arg(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

async function run(argv: string[], env: Record<string, string>, stdin = '', cwd = process.cwd()) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    readStdin: async () => stdin,
    env,
    cwd,
  };
  const started = performance.now();
  const code = await main(argv, io);
  return { code, stdout, stderr, ms: performance.now() - started };
}

/** Names announced in a discovery text (`- name: …` lines before the load note). */
export function announced(context: string): string[] {
  const discovery = context.split('\n\nNot in your skill list')[0] ?? '';
  return [...discovery.matchAll(/^- ([^:\n]+)(?::|$)/gm)].map((match) => match[1]!);
}

async function measure(): Promise<void> {
  const collections = readdirSync(LIBRARY)
    .map((name) => path.join(LIBRARY, name))
    .filter((dir) => statSync(dir).isDirectory())
    .sort();
  const home = mkdtempSync(path.join(os.tmpdir(), 'skill-search-deferred-'));
  try {
    const project = path.join(home, 'project');
    mkdirSync(path.join(home, '.claude', 'skills'), { recursive: true });
    mkdirSync(project);
    const env = { HOME: home, SKILL_SEARCH_CACHE_DIR: path.join(home, '.cache'), PATH: '' };
    const library = collections.flatMap((dir) => ['--library', dir]);
    const model = ['--model', arg('model') ?? 'use-lite', ...(arg('mode') ? ['--mode', arg('mode')!] : [])];

    const tokens = await run(['tokens', '--cwd', project, '--json', ...library], env);
    if (tokens.code !== 0) throw new Error(tokens.stderr);
    const cost = JSON.parse(tokens.stdout);
    writeFileSync(path.join(home, '.claude', 'skill-search.json'), JSON.stringify({ pin: PINNED }));
    const pinnedTokens = await run(['tokens', '--cwd', project, '--json', ...library], env);
    const pinned = JSON.parse(pinnedTokens.stdout).after;
    rmSync(path.join(home, '.claude', 'skill-search.json'));
    const index = await run(['index', '--cwd', project, ...library, ...model], env);
    if (index.code !== 0) throw new Error(index.stderr);

    const results = [];
    for (const { prompt, expected } of TYPICAL_REQUESTS) {
      const input = JSON.stringify({ hook_event_name: 'UserPromptSubmit', cwd: project, prompt });
      const hook = await run(['hook', 'claude-code', ...library, ...model], env, input);
      const context = hook.stdout === '' ? '' : (JSON.parse(hook.stdout).hookSpecificOutput.additionalContext as string);
      const names = announced(context);
      const hit = names.findIndex((name) => expected.includes(name));
      results.push({
        prompt,
        expected,
        announced: names,
        position: hit < 0 ? null : hit + 1,
        withPath: context.includes('/SKILL.md'),
        ms: Math.round(hook.ms),
      });
    }
    const hits = results.filter((result) => result.position !== null).length;
    const summary = {
      library: { collections: collections.length, skills: cost.before.skills },
      listing: {
        budgetChars: cost.budgetChars,
        before: cost.before,
        after: cost.after,
        afterWithPins: { pins: PINNED, ...pinned },
        savedListingTokens: cost.savedListingTokens,
        savedFullTokens: cost.savedFullTokens,
      },
      hook: { requests: results.length, surfaced: hits, atFirst: results.filter((result) => result.position === 1).length, results },
      indexMs: Math.round(index.ms),
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  measure().catch((error) => {
    process.stderr.write(`${error?.stack ?? error}\n`);
    process.exitCode = 1;
  });
}
