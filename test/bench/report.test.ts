import { describe, expect, it } from 'vitest';
import { chartInput, formatValue, renderMarkdown, renderText } from '../../bench/report.js';
import { compare, type RunReport } from '../../bench/results.js';

const report: RunReport = {
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 125_000,
  argv: [],
  environment: {
    node: 'v20.0.0',
    platform: 'linux-x64',
    cpus: 2,
    cpuModel: 'CPU',
    loadAverage: [1, 1, 1],
    embedder: 'use-lite@0.2.0',
    data: 'real',
    embeddedIntoCache: { texts: 0, ms: 0 },
  },
  suites: [
    {
      suite: 'ann',
      state: 'completed',
      durationMs: 4200,
      measurements: [
        compare(
          { group: 'n=1,000', name: 'HNSW search k=10', metric: 'p50', value: 0.05, unit: 'ms', better: 'lower', headline: true },
          { name: 'exact scan', value: 0.5 },
        ),
      ],
      notes: ['same vectors'],
    },
    { suite: 'prefetch', state: 'errored', durationMs: 10, error: 'boom' },
    { suite: 'reindex', state: 'skipped', durationMs: 0, reason: 'no engine' },
  ],
};

describe('report', () => {
  it('prints each suite with how long it took, its table and the ratio to its baseline', () => {
    const text = renderText(report);
    expect(text).toContain('total 2 min 5 s, embedding cache warm');
    expect(text).toContain('■ ann — took 4.2 s');
    expect(text).toContain('n=1,000  HNSW search k=10 (p50)  50.0 µs  exact scan: 500.0 µs  0.1×');
    expect(text).toContain('note: same vectors');
    expect(text).toContain('■ prefetch — FAILED after 0.0 s: boom');
    expect(text).toContain('■ reindex — skipped: no engine');
  });

  it('ends with the headline ratios and whether each beat its baseline', () => {
    const text = renderText(report);
    expect(text.indexOf('■ headlines')).toBeGreaterThan(text.indexOf('■ reindex'));
    expect(text).toMatch(/ann {4}n=1,000 {2}HNSW search k=10 \(p50\) {2}50\.0 µs {2}exact scan: 500\.0 µs {2}0\.1× +better/);
  });

  it('shows a target beside the ratio, with whether the run met it', () => {
    const row = (ratio: number, met: boolean) =>
      ({
        group: '24000 lines',
        name: 'hook',
        metric: 'median',
        value: 400 * ratio,
        unit: 'ms',
        baseline: { name: 'node -e 0', value: 400 },
        ratio,
        target: { text: '≤ 4×', met },
      }) as const;
    const withTargets: RunReport = {
      ...report,
      suites: [{ suite: 'cold-hook', state: 'completed', durationMs: 1, measurements: [row(3, true), row(5, false)], notes: [] }],
    };
    const markdown = renderMarkdown(withTargets);
    expect(markdown).toContain('| 1200 ms | node -e 0: 400 ms | 3.0× | ≤ 4×: pass |');
    expect(markdown).toContain('| 2000 ms | node -e 0: 400 ms | 5.0× | ≤ 4×: FAIL |');
  });

  it('renders the same tables as Markdown for the README, headlines first', () => {
    expect(renderMarkdown(report)).toContain('| ann | n=1,000 | HNSW search k=10 (p50) | 50.0 µs | exact scan: 500.0 µs | 0.1× |  | better |');
    const markdown = renderMarkdown(report);
    expect(markdown).toContain('#### ann — took 4.2 s');
    expect(markdown).toContain('| n=1,000 | HNSW search k=10 (p50) | 50.0 µs | exact scan: 500.0 µs | 0.1× |');
  });

  it('charts only headline ratios', () => {
    expect(chartInput(report).ratios).toEqual([{ label: 'HNSW search k=10 vs exact scan (p50, n=1,000)', ratio: 0.1, better: 'lower' }]);
  });

  it('formats values in their unit', () => {
    expect(formatValue(1234, 'ms')).toBe('1234 ms');
    expect(formatValue(12.345, 'ms')).toBe('12.35 ms');
    expect(formatValue(0.0123, 'ms')).toBe('12.3 µs');
    expect(formatValue(0.5, 'fraction')).toBe('0.500');
    expect(formatValue(88.4, 'per-s')).toBe('88.4/s');
  });
});
