/**
 * Does the usage prior help, and does it hurt? Simulated sessions on the 434 public skills
 * of ../shared/eval/library (read in place, default model), through the hook's own code
 * (`runClaudeCodeHook`: prefetch relevance filter, 3 suggestions):
 *   - habits: a user who, for one kind of request, always invokes one skill among several
 *     that fit. Each habit has 4 prompts (our own wording), asked in order; after each, the
 *     user invokes the habit skill (its use count grows by 1). Measured: how often the habit
 *     skill is suggested first for prompts 2–4, without and with the prior.
 *   - collateral: the 12 typical requests of measure-deferred.ts with every habit skill used
 *     3 times: how many first suggestions change.
 * The weight is chosen on the dev habits (smallest weight that improves dev with no
 * collateral change) and reported on the test habits; when none qualifies, no weight is chosen.
 *
 * Usage: npx tsx scripts/measure-usage-prior.ts
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runClaudeCodeHook } from '../src/integrations/claude-code-hook.js';
import { LiveIndex } from '../src/integrations/live-index.js';
import type { SearchHit, SkillSearcher } from '../src/types.js';
import { announced, TYPICAL_REQUESTS } from './measure-deferred.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const LIBRARY = process.env.SKILL_SEARCH_EVAL_LIBRARY ?? path.resolve(HERE, '..', '..', 'shared', 'eval', 'library');

interface Habit {
  readonly skill: string;
  readonly prompts: readonly string[];
}

const DEV: readonly Habit[] = [
  {
    skill: 'debugging-strategies',
    prompts: [
      'help me debug this crash in the parser',
      'figure out why the server hangs on startup',
      'this function returns the wrong value sometimes, debug it',
      'find the bug behind this stack trace',
    ],
  },
  {
    skill: 'code-review-excellence',
    prompts: ['review my pull request', 'look over this diff before I merge it', 'give me feedback on this change', 'check this patch for problems'],
  },
  {
    skill: 'create-plan',
    prompts: [
      'plan how to build the export feature',
      'write a step by step plan for this refactor',
      'make a plan before we start coding the sync job',
      'outline the implementation of user invites',
    ],
  },
];
const TEST: readonly Habit[] = [
  {
    skill: 'semgrep',
    prompts: [
      'scan this repo with semgrep',
      'find insecure patterns in this code with static analysis',
      'write a static analysis check for SQL injection',
      'run a quick security scan of the backend',
    ],
  },
  {
    skill: 'writing-skills',
    prompts: [
      'create a new skill for our release process',
      'write a SKILL.md that teaches the deploy steps',
      'turn this checklist into a skill',
      'improve the description of my skill',
    ],
  },
  {
    skill: 'test-driven-development',
    prompts: [
      'write tests first for this new function',
      'add unit tests for the date parser',
      'help me test this module',
      'cover this bug with a failing test before fixing it',
    ],
  },
];
const WEIGHTS = [0, 0.02, 0.05, 0.1, 0.2];

/*
 * The prior under test: a skill this project used moves up among the hits the search already
 * returned, by at most `weight` on the [0, 1] score (`weight · uses / (uses + 1)`). It only
 * reorders; it never adds a hit the search abstained from. Not wired into the product: see
 * the README ("Usage record") for the measured result.
 */
function usageBoost(uses: number, weight: number): number {
  return uses > 0 ? (weight * uses) / (uses + 1) : 0;
}

/** Hits re-scored with the prior, best first; hits of unused skills keep their score. */
function applyUsagePrior(hits: readonly SearchHit[], usage: ReadonlyMap<string, number>, weight: number): SearchHit[] {
  if (usage.size === 0 || weight <= 0) return [...hits];
  return hits
    .map((hit) => {
      const boost = usageBoost(usage.get(hit.skill.name) ?? 0, weight);
      return boost === 0 ? hit : { ...hit, score: hit.score + boost };
    })
    .sort((a, b) => b.score - a.score);
}

/** `inner` with the prior applied to every search; its other methods pass through. */
function withUsagePrior<T extends SkillSearcher>(inner: T, usage: ReadonlyMap<string, number>, weight: number): T {
  if (usage.size === 0 || weight <= 0) return inner;
  const search: SkillSearcher['search'] = async (query, request) => applyUsagePrior(await inner.search(query, request), usage, weight);
  return new Proxy(inner, {
    get(target, key) {
      if (key === 'search') return search;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

async function suggestions(live: LiveIndex, prompt: string, usage: ReadonlyMap<string, number>, weight: number): Promise<string[]> {
  const result = await runClaudeCodeHook(JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt }), {
    open: async () => {
      const searcher = withUsagePrior(live, usage, weight);
      return { search: (query, request) => searcher.search(query, request), close: async () => undefined };
    },
    k: 3,
    timeoutMs: 60_000,
    log: () => undefined,
  });
  return result.stdout === '' ? [] : announced(JSON.parse(result.stdout).hookSpecificOutput.additionalContext as string);
}

/** Prompts 2–4 of each habit with the habit skill suggested first. */
async function habitScore(live: LiveIndex, habits: readonly Habit[], weight: number) {
  let first = 0;
  let asked = 0;
  const detail: { skill: string; firsts: string[] }[] = [];
  for (const habit of habits) {
    const usage = new Map<string, number>();
    const firsts: string[] = [];
    for (const [i, prompt] of habit.prompts.entries()) {
      const names = await suggestions(live, prompt, usage, weight);
      firsts.push(names[0] ?? '-');
      if (i > 0) {
        asked += 1;
        if (names[0] === habit.skill) first += 1;
      }
      usage.set(habit.skill, (usage.get(habit.skill) ?? 0) + 1);
    }
    detail.push({ skill: habit.skill, firsts });
  }
  return { first, asked, detail };
}

async function collateral(live: LiveIndex, weight: number): Promise<{ changed: number; surfacedBefore: number; surfacedAfter: number }> {
  const usage = new Map([...DEV, ...TEST].map((habit) => [habit.skill, 3]));
  let changed = 0;
  let surfacedBefore = 0;
  let surfacedAfter = 0;
  for (const { prompt, expected } of TYPICAL_REQUESTS) {
    const before = await suggestions(live, prompt, new Map(), 0);
    const after = await suggestions(live, prompt, usage, weight);
    if (before[0] !== after[0]) changed += 1;
    if (before.some((name) => expected.includes(name))) surfacedBefore += 1;
    if (after.some((name) => expected.includes(name))) surfacedAfter += 1;
  }
  return { changed, surfacedBefore, surfacedAfter };
}

async function measure(): Promise<void> {
  const libraryDirs = readdirSync(LIBRARY)
    .map((name) => path.join(LIBRARY, name))
    .filter((dir) => statSync(dir).isDirectory());
  const home = mkdtempSync(path.join(os.tmpdir(), 'skill-search-prior-'));
  const live = await LiveIndex.open({
    catalog: { cwd: home, home, libraryDirs, managedDir: null, codexHome: null, claudePlugins: false },
    model: 'use-lite',
    indexDir: path.join(home, 'index'),
    k: 10,
  });
  try {
    await live.refresh();
    const rows = [];
    for (const weight of WEIGHTS) {
      rows.push({ weight, dev: await habitScore(live, DEV, weight), collateral: weight === 0 ? undefined : await collateral(live, weight) });
    }
    const baseline = rows[0]!.dev.first;
    const eligible = rows.filter((row) => row.weight > 0 && row.collateral?.changed === 0 && row.dev.first > baseline);
    const best = Math.max(...eligible.map((row) => row.dev.first));
    const chosen = eligible.find((row) => row.dev.first === best)?.weight;
    const test = {
      without: await habitScore(live, TEST, 0),
      ...(chosen === undefined ? {} : { with: await habitScore(live, TEST, chosen) }),
    };
    process.stdout.write(`${JSON.stringify({ rows, chosen: chosen ?? null, test }, null, 2)}\n`);
  } finally {
    await live.close();
    rmSync(home, { recursive: true, force: true });
  }
}

measure().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exitCode = 1;
});
