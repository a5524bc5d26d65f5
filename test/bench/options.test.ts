import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArgs, resolveOptions, SUITE_NAMES } from '../../bench/options.js';

describe('bench options', () => {
  it('runs every suite at 1k / 10k / 24k by default and at small sizes with --quick', () => {
    const full = resolveOptions({});
    expect(full.only).toEqual(SUITE_NAMES);
    expect(full.sizes).toEqual([1000, 10_000, 24_000]);
    expect(full.evalDir).toBe(path.resolve(full.outDir, '..', '..', 'shared', 'eval'));
    expect(resolveOptions({ quick: true }).sizes).toEqual([300, 1000]);
    expect(resolveOptions({ quick: true }).outDir).toBe(path.join(full.outDir, '.cache', 'quick'));
  });

  it('writes anything but the full default run outside bench/, so the committed results stay whole', () => {
    const full = resolveOptions({});
    const partial = path.join(full.outDir, '.cache', 'partial');
    expect(resolveOptions({ only: ['ann'] }).outDir).toBe(partial);
    expect(resolveOptions({ sizes: [1000] }).outDir).toBe(partial);
    expect(resolveOptions({ embedder: 'hash' }).outDir).toBe(partial);
    expect(resolveOptions({ only: [...SUITE_NAMES], sizes: [1000, 10_000, 24_000] }).outDir).toBe(full.outDir);
    expect(resolveOptions({ only: ['ann'], outDir: '/tmp/bench-out' }).outDir).toBe('/tmp/bench-out');
  });

  it('parses --only lists, --sizes with k suffixes and --no-eval', () => {
    const parsed = parseArgs(['--only', 'ann,hit-rate', '--sizes=1k,500,1000', '--no-eval', '--quick']);
    expect(parsed).toEqual({ only: ['ann', 'hit-rate'], sizes: [1000, 500, 1000], evalDir: null, quick: true });
    expect(resolveOptions(parsed as object).sizes).toEqual([500, 1000]);
  });

  it('names the flag and the value in every error', () => {
    expect(() => resolveOptions(parseArgs(['--only', 'ann,typo']) as object)).toThrow(
      `Expected \`--only\` to be one of ${SUITE_NAMES.join(', ')}, got \`typo\``,
    );
    expect(() => resolveOptions(parseArgs(['--sizes', '10,abc']) as object)).toThrow('Expected `--sizes` to be positive integers, got `10,NaN`');
    expect(() => parseArgs(['--sizes'])).toThrow('Expected a value after `--sizes`');
    expect(() => parseArgs(['--fast'])).toThrow(/^Unknown flag `--fast`/);
  });
});
