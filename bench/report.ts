/**
 * Renders a run three ways from one `RunReport`: a plain-text table on stdout,
 * `results.json` (the full data) and `chart.svg` (for people), plus `results.md`
 * (the same tables in Markdown, ready for the README).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { HitRateRow, Measurement, RunReport, SuiteResult, Unit } from './results.js';
import { formatRatio, renderChart, type ChartInput, type HitRateGroup, type LatencySeries } from './svg.js';

export function formatValue(value: number, unit: Unit): string {
  if (!Number.isFinite(value)) return '–';
  switch (unit) {
    case 'ms':
      return value >= 100 ? `${value.toFixed(0)} ms` : value >= 1 ? `${value.toFixed(2)} ms` : `${(value * 1000).toFixed(1)} µs`;
    case 's':
      return `${value.toFixed(1)} s`;
    case 'per-s':
      return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)}/s`;
    case 'fraction':
      return value.toFixed(3);
    case 'count':
      return `${Math.round(value)}`;
    case 'MB':
      return `${value.toFixed(1)} MB`;
  }
}

export const formatDuration = (ms: number): string =>
  ms >= 60_000 ? `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;

type Row = readonly string[];

function measurementRow(m: Measurement): Row {
  return [
    m.group,
    `${m.name} (${m.metric})`,
    formatValue(m.value, m.unit),
    m.baseline ? `${m.baseline.name}: ${formatValue(m.baseline.value, m.unit)}` : '',
    m.ratio == null ? '' : formatRatio(m.ratio),
    m.target === undefined ? '' : `${m.target.text}: ${m.target.met ? 'pass' : 'FAIL'}`,
  ];
}

const HIT_HEADER: Row = [
  'set',
  'mode',
  'skills',
  'queries',
  'hit@1',
  'hit@5',
  'MRR',
  'nDCG@10',
  'hit@5 ÷ lexical',
  'hit@5 ÷ dense',
  'shown hit@1',
  'shown hit@5',
  'blank',
  'abstain',
];

function hitRows(rows: readonly HitRateRow[]): Row[] {
  return rows.map((row) => {
    const sameSet = rows.filter((r) => r.set === row.set);
    const lexical = sameSet.find((r) => r.mode === 'lexical')?.metrics.hitAt5;
    const dense = sameSet.find((r) => r.mode === 'dense')?.metrics.hitAt5;
    const m = row.metrics;
    const div = (base: number | undefined): string => (base ? formatRatio(m.hitAt5 / base) : '');
    return [
      `${row.set}${row.origin === 'synthetic' ? ' (synthetic)' : ''}`,
      row.mode,
      `${row.skills}`,
      `${m.queries}`,
      m.hitAt1.toFixed(3),
      m.hitAt5.toFixed(3),
      m.mrr.toFixed(3),
      m.ndcgAt10.toFixed(3),
      div(lexical),
      div(dense),
      row.shown?.hitAt1.toFixed(3) ?? '',
      row.shown?.hitAt5.toFixed(3) ?? '',
      row.shown?.blank.toFixed(3) ?? '',
      m.abstain.queries === 0 ? '' : `${m.abstain.correct}/${m.abstain.queries}`,
    ];
  });
}

function plainTable(header: Row, rows: readonly Row[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: Row): string =>
    r
      .map((cell, i) => (cell ?? '').padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function markdownTable(header: Row, rows: readonly Row[]): string {
  const esc = (cell: string): string => cell.replace(/\|/g, '\\|');
  return [`| ${header.map(esc).join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`)].join('\n');
}

const MEASUREMENT_HEADER: Row = ['group', 'measurement', 'value', 'baseline (same run)', 'ratio', 'target'];

function suiteHeading(suite: SuiteResult): string {
  const took = formatDuration(suite.durationMs);
  switch (suite.state) {
    case 'completed':
      return `${suite.suite} — took ${took}`;
    case 'skipped':
      return `${suite.suite} — skipped: ${suite.reason}`;
    case 'errored':
      return `${suite.suite} — FAILED after ${took}: ${suite.error}`;
  }
}

function renderSuites(report: RunReport, table: (h: Row, r: readonly Row[]) => string, heading: (s: string) => string): string {
  const out: string[] = [];
  for (const suite of report.suites) {
    out.push(heading(suiteHeading(suite)));
    if (suite.state !== 'completed') continue;
    if (suite.measurements.length > 0) out.push(table(MEASUREMENT_HEADER, suite.measurements.map(measurementRow)));
    if (suite.hitRates && suite.hitRates.length > 0) out.push(table(HIT_HEADER, hitRows(suite.hitRates)));
    for (const note of suite.notes) out.push(`note: ${note}`);
  }
  return out.join('\n\n');
}

const HEADLINE_HEADER: Row = ['suite', 'group', 'measurement', 'value', 'baseline (same run)', 'ratio', 'target', 'vs baseline'];

/** The measurements flagged as headlines, across suites: what a reader should see first. */
function headlineRows(report: RunReport): Row[] {
  return report.suites.flatMap((suite) =>
    suite.state !== 'completed'
      ? []
      : suite.measurements
          .filter((m) => m.headline && m.ratio != null)
          .map((m) => {
            const better = (m.better ?? 'lower') === 'lower' ? m.ratio! < 1 : m.ratio! > 1;
            const verdict = Math.abs(m.ratio! - 1) < 0.005 ? 'same' : better ? 'better' : 'worse';
            return [suite.suite, ...measurementRow(m), verdict];
          }),
  );
}

function environmentLine(report: RunReport): string {
  const e = report.environment;
  const cache = e.embeddedIntoCache?.texts
    ? `, of which ${formatDuration(e.embeddedIntoCache.ms)} embedding ${e.embeddedIntoCache.texts} skills into the cache (first run only)`
    : ', embedding cache warm';
  return `node ${e.node}, ${e.platform}, ${e.cpus}× ${e.cpuModel}, load ${e.loadAverage.map((l) => l.toFixed(1)).join('/')}; embedder ${e.embedder}; data: ${e.data}; total ${formatDuration(report.durationMs)}${cache}`;
}

export function renderText(report: RunReport): string {
  const headlines = headlineRows(report);
  return [
    `skill-search bench — ${environmentLine(report)}`,
    renderSuites(report, plainTable, (s) => `■ ${s}`),
    ...(headlines.length > 0 ? ['■ headlines (each against its same-run baseline)', plainTable(HEADLINE_HEADER, headlines)] : []),
  ].join('\n\n');
}

export function renderMarkdown(report: RunReport): string {
  const headlines = headlineRows(report);
  return [
    `_${report.startedAt}: ${environmentLine(report)}_`,
    ...(headlines.length > 0 ? ['#### Headlines (each against its same-run baseline)', markdownTable(HEADLINE_HEADER, headlines)] : []),
    renderSuites(report, markdownTable, (s) => `#### ${s}`),
  ].join('\n\n');
}

const HIT_METRICS = ['hit@1', 'hit@5', 'MRR', 'nDCG@10'] as const;

export function chartInput(report: RunReport): ChartInput {
  const completed = report.suites.flatMap((s) => (s.state === 'completed' ? [s] : []));
  const ratios = completed.flatMap((s) =>
    s.measurements.flatMap((m) =>
      m.headline && m.ratio != null && m.ratio > 0 && m.baseline
        ? [{ label: `${m.name} vs ${m.baseline.name} (${m.metric}, ${m.group})`, ratio: m.ratio, better: m.better ?? 'lower' }]
        : [],
    ),
  );
  const hitRates: HitRateGroup[] = [];
  for (const row of completed.flatMap((s) => s.hitRates ?? [])) {
    const title = `${row.set} (${row.skills} skills, ${row.metrics.queries} queries${row.origin === 'synthetic' ? ', synthetic' : ''})`;
    let group = hitRates.find((g) => g.title === title);
    if (!group) {
      group = { title, modes: [] };
      hitRates.push(group);
    }
    const m = row.metrics;
    (group.modes as { mode: string; values: number[] }[]).push({ mode: row.mode, values: [m.hitAt1, m.hitAt5, m.mrr, m.ndcgAt10] });
  }
  const latency: LatencySeries[] = [];
  for (const point of completed.flatMap((s) => s.scaling ?? [])) {
    let series = latency.find((s) => s.name === point.series);
    if (!series) {
      series = { name: point.series, points: [] };
      latency.push(series);
    }
    (series.points as { size: number; ms: number }[]).push({ size: point.size, ms: point.p50Ms });
  }
  return {
    title: 'skill-search benchmarks',
    subtitle: `${report.startedAt} · ${environmentLine(report)}`,
    ratios,
    hitRateMetrics: HIT_METRICS,
    hitRates,
    latency,
  };
}

export interface WrittenFiles {
  readonly json: string;
  readonly svg: string;
  readonly markdown: string;
}

export function writeReport(report: RunReport, outDir: string): WrittenFiles {
  mkdirSync(outDir, { recursive: true });
  const files = {
    json: path.join(outDir, 'results.json'),
    svg: path.join(outDir, 'chart.svg'),
    markdown: path.join(outDir, 'results.md'),
  };
  writeFileSync(files.json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(files.svg, renderChart(chartInput(report)));
  writeFileSync(files.markdown, `${renderMarkdown(report)}\n`);
  return files;
}
