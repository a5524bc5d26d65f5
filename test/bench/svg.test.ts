import { describe, expect, it } from 'vitest';
import { escapeXml, formatRatio, renderChart, type ChartInput } from '../../bench/svg.js';

const input: ChartInput = {
  title: 'skill-search benchmarks',
  subtitle: 'test run',
  ratios: [
    { label: 'HNSW search vs exact scan (p50, n=10,000)', ratio: 0.08, better: 'lower' },
    { label: 'hybrid vs lexical-only (hit@5, <metatool>)', ratio: 1.25, better: 'higher' },
    { label: 'typo-tolerant BM25 vs plain BM25', ratio: 5000, better: 'lower' },
  ],
  hitRateMetrics: ['hit@1', 'hit@5', 'MRR', 'nDCG@10'],
  hitRates: [
    {
      title: 'metatool (199 skills, 450 queries)',
      modes: [
        { mode: 'lexical', values: [0.5, 0.7, 0.6, 0.62] },
        { mode: 'hybrid', values: [0.6, 0.85, 0.7, 0.74] },
      ],
    },
  ],
  latency: [
    {
      name: 'HNSW search',
      points: [
        { size: 1000, ms: 0.1 },
        { size: 24_000, ms: 0.3 },
      ],
    },
    {
      name: 'exact scan',
      points: [
        { size: 1000, ms: 0.5 },
        { size: 24_000, ms: 12 },
      ],
    },
  ],
};

describe('renderChart', () => {
  const svg = renderChart(input);

  it('is one standalone SVG document with a white background', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg.match(/<svg/g)).toHaveLength(1);
    expect(svg).toContain('<rect width="100%" height="100%" fill="#fff"/>');
  });

  it('escapes labels so a name with markup cannot break the document', () => {
    expect(svg).toContain('hybrid vs lexical-only (hit@5, &lt;metatool&gt;)');
    expect(svg).not.toContain('<metatool>');
  });

  it('labels each ratio bar with its value and marks bars beyond the axis as clipped', () => {
    expect(svg).toContain('>0.08×</text>');
    expect(svg).toContain('>1.3×</text>');
    expect(svg).toContain('>5000× (clipped)</text>');
  });

  it('colours a ratio by whether it beats its baseline in the direction that matters', () => {
    const bars = [...svg.matchAll(/<rect x="[\d.]+" y="[\d.]+" width="[\d.]+" height="15" fill="(#[0-9a-f]+)"/g)].map((m) => m[1]);
    expect(bars).toEqual(['#59a14f', '#59a14f', '#e15759']);
  });

  it('draws one bar per mode and metric, and a line per latency series', () => {
    expect(svg.match(/<title>metatool \(199 skills, 450 queries\) (lexical|hybrid) /g)).toHaveLength(8);
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    expect(svg).toContain('24,000 skills');
  });

  it('spans whole decades around the data, from 0.1× at least to 1000× at most', () => {
    const ticks = [...svg.matchAll(/text-anchor="middle" fill="#555">([^<]+)<\/text>/g)].map((m) => m[1]);
    expect(ticks).toEqual(['0.01×', '0.1×', '1.0×', '10×', '100×', '1000×']);
  });

  it('says so when a panel has no data instead of drawing an empty frame', () => {
    const empty = renderChart({ ...input, ratios: [], hitRates: [], latency: [] });
    expect(empty).toContain('no ratios measured in this run');
    expect(empty).toContain('no hit-rate runs in this run');
    expect(empty).toContain('no scaling runs in this run');
  });
});

describe('formatRatio / escapeXml', () => {
  it('shows two significant digits, and three just below 1× so a small loss stays visible', () => {
    expect(formatRatio(0.0123)).toBe('0.012×');
    expect(formatRatio(0.5)).toBe('0.5×');
    expect(formatRatio(0.997)).toBe('0.997×');
    expect(formatRatio(1)).toBe('1.0×');
    expect(formatRatio(12.4)).toBe('12×');
  });

  it('escapes the five XML special characters', () => {
    expect(escapeXml(`<a href="x">Tom & Jerry's</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&apos;s&lt;/a&gt;');
  });
});
