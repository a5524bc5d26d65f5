/**
 * The hook's usage bookkeeping over a long session stays linear: a transcript with 100k Skill
 * calls (each a different skill, the worst case for the per-session pair lists) is read and
 * recorded in time proportional to its size. Asserted as a ratio between 12.5k and 100k calls
 * (8× the work: about 8× the time when linear, 64× when quadratic), never as a fixed threshold.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTranscript } from '../../src/integrations/transcript.js';
import { UsageStore } from '../../src/usage/usage-store.js';
import { removeDir, tempDir } from '../cli/helpers.js';

const dir = tempDir('skill-search-usage-scale-');
afterAll(() => removeDir(dir));

function transcriptWith(calls: number): string {
  const file = path.join(dir, `calls-${calls}.jsonl`);
  const lines: string[] = [];
  for (let i = 0; i < calls; i += 1) {
    lines.push(JSON.stringify({ type: 'assistant', message: { content: [{ type: 'tool_use', id: `t${i}`, name: 'Skill', input: { skill: `skill-${i}` } }] } }));
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** What the hook does with a transcript once a turn has its answer (`recordUsage` in cli/commands/hook.ts). */
async function bookkeeping(file: string, root: string): Promise<number> {
  const started = performance.now();
  const { invoked } = await readTranscript(file);
  const store = UsageStore.open(root, '/work/project');
  store.recordUsed('session', invoked);
  store.recordSuggested('session', ['skill-1', 'skill-new']);
  expect(store.save()).toBeUndefined();
  return performance.now() - started;
}

async function medianMs(file: string, runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) times.push(await bookkeeping(file, path.join(dir, `root-${path.basename(file)}-${i}`)));
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

describe('usage bookkeeping over a long transcript', () => {
  it('reads every one of 100k Skill calls and keeps the store bounded', async () => {
    const file = transcriptWith(100_000);
    expect((await readTranscript(file)).invoked.size).toBe(100_000);
    const root = path.join(dir, 'bounded');
    await bookkeeping(file, root);
    const store = UsageStore.open(root, '/work/project');
    expect(store.entries().length).toBe(500);
  });

  it('is linear: 8× the calls costs well under 24× the time', { timeout: 120_000 }, async () => {
    const small = transcriptWith(12_500);
    const large = transcriptWith(100_000);
    await bookkeeping(small, path.join(dir, 'warm-up'));
    const ratio = (await medianMs(large, 3)) / (await medianMs(small, 3));
    expect(ratio).toBeLessThan(24);
  });
});
