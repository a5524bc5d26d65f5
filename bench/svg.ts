/**
 * A hand-written SVG chart: no dependency, opens in any browser or on GitHub.
 * Three panels stacked vertically: ratios against same-run baselines (log scale, 1× in the
 * middle), hit rate per mode for each labelled set, and query latency against catalog size.
 */
import type { Better } from './results.js';

export interface RatioBar {
  readonly label: string;
  readonly ratio: number;
  readonly better: Better;
}

export interface HitRateGroup {
  readonly title: string;
  /** One entry per mode, in legend order. */
  readonly modes: readonly { readonly mode: string; readonly values: readonly number[] }[];
}

export interface LatencySeries {
  readonly name: string;
  /** Points by size; a missing size is simply not drawn. */
  readonly points: readonly { readonly size: number; readonly ms: number }[];
}

export interface ChartInput {
  readonly title: string;
  readonly subtitle: string;
  readonly ratios: readonly RatioBar[];
  readonly hitRateMetrics: readonly string[];
  readonly hitRates: readonly HitRateGroup[];
  readonly latency: readonly LatencySeries[];
}

const WIDTH = 1200;
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';
const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#76b7b2', '#e15759', '#9c755f', '#edc948'];
const GOOD = '#59a14f';
const BAD = '#e15759';

export function escapeXml(value: string): string {
  return value.replace(/[<>&"']/g, (c) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot', "'": 'apos' }[c]!};`);
}

const truncate = (value: string, max: number): string => (value.length <= max ? value : `${value.slice(0, max - 1)}…`);

const text = (x: number, y: number, body: string, attrs = ''): string => `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${attrs}>${escapeXml(body)}</text>`;

/** `0.123×`, `12×`, `1.0×`: two significant digits is all a ratio chart can show honestly. */
export function formatRatio(value: number): string {
  if (value >= 10) return `${Math.round(value)}×`;
  if (value >= 1) return `${value.toFixed(1)}×`;
  // Near 1 two significant digits would round 0.997 up to "1×" and hide the loss.
  if (value >= 0.95) return `${value.toFixed(3)}×`;
  return `${Number(value.toPrecision(2))}×`;
}

interface Panel {
  readonly height: number;
  readonly body: string;
}

function ratioPanel(bars: readonly RatioBar[]): Panel {
  const rowHeight = 22;
  const top = 34;
  const labelWidth = 640;
  const plotLeft = labelWidth + 20;
  const plotWidth = WIDTH - plotLeft - 60;
  // Whole decades around the data, at least 0.1×…10×, at most 10^-5…10^3; bars beyond are clipped and marked.
  const logs = bars.map((bar) => Math.log10(bar.ratio));
  const lo = Math.max(-5, Math.min(-1, Math.floor(Math.min(0, ...logs))));
  const hi = Math.min(3, Math.max(1, Math.ceil(Math.max(0, ...logs))));
  const x = (r: number): number => {
    const log = Math.max(lo, Math.min(hi, Math.log10(r)));
    return plotLeft + ((log - lo) / (hi - lo)) * plotWidth;
  };
  const parts: string[] = [
    text(20, 22, 'Each measurement ÷ its baseline from the same run (log scale; green = better than baseline)', `${FONT} font-size="15" font-weight="600"`),
  ];
  const height = top + bars.length * rowHeight + 30;
  for (let e = lo; e <= hi; e++) {
    const tick = 10 ** e;
    parts.push(
      `<line x1="${x(tick)}" y1="${top - 4}" x2="${x(tick)}" y2="${height - 24}" stroke="${tick === 1 ? '#333' : '#ddd'}" stroke-width="${tick === 1 ? 1.5 : 1}"/>`,
      text(x(tick), height - 10, formatRatio(tick), `${FONT} font-size="11" text-anchor="middle" fill="#555"`),
    );
  }
  bars.forEach((bar, i) => {
    const y = top + i * rowHeight;
    const good = bar.better === 'lower' ? bar.ratio <= 1 : bar.ratio >= 1;
    const x0 = x(1);
    const x1 = x(bar.ratio);
    const clipped = Math.log10(bar.ratio) < lo || Math.log10(bar.ratio) > hi;
    parts.push(
      text(labelWidth, y + 14, truncate(bar.label, 100), `${FONT} font-size="12" text-anchor="end" fill="#222"`),
      `<rect x="${Math.min(x0, x1).toFixed(1)}" y="${y + 3}" width="${Math.max(1, Math.abs(x1 - x0)).toFixed(1)}" height="${rowHeight - 7}" fill="${good ? GOOD : BAD}" opacity="0.85"/>`,
      // Bars below 1× grow leftwards, so their value sits right of the 1× line, clear of the labels.
      text(bar.ratio >= 1 ? x1 + 4 : x0 + 4, y + 14, `${formatRatio(bar.ratio)}${clipped ? ' (clipped)' : ''}`, `${FONT} font-size="11" fill="#222"`),
    );
  });
  if (bars.length === 0) parts.push(text(20, top + 14, 'no ratios measured in this run', `${FONT} font-size="12" fill="#777"`));
  return { height: Math.max(height, top + 40), body: parts.join('\n') };
}

function hitRatePanel(metrics: readonly string[], groups: readonly HitRateGroup[]): Panel {
  const top = 34;
  const groupHeight = 190;
  const plotLeft = 60;
  const plotWidth = WIDTH - plotLeft - 170;
  const parts: string[] = [text(20, 22, 'Hit rate per mode (higher is better)', `${FONT} font-size="15" font-weight="600"`)];
  const modes = [...new Set(groups.flatMap((g) => g.modes.map((m) => m.mode)))];
  modes.forEach((mode, i) => {
    const ly = top + 18 + i * 18;
    parts.push(
      `<rect x="${WIDTH - 150}" y="${ly - 10}" width="12" height="12" fill="${PALETTE[i % PALETTE.length]}"/>`,
      text(WIDTH - 132, ly, mode, `${FONT} font-size="12"`),
    );
  });
  groups.forEach((group, g) => {
    const y0 = top + g * groupHeight;
    const plotTop = y0 + 22;
    const plotHeight = groupHeight - 60;
    const y = (v: number): number => plotTop + plotHeight * (1 - Math.max(0, Math.min(1, v)));
    parts.push(text(plotLeft, y0 + 14, group.title, `${FONT} font-size="13" font-weight="600"`));
    for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
      parts.push(
        `<line x1="${plotLeft}" y1="${y(tick)}" x2="${plotLeft + plotWidth}" y2="${y(tick)}" stroke="${tick === 0 ? '#333' : '#e5e5e5'}"/>`,
        text(plotLeft - 6, y(tick) + 4, tick.toFixed(2), `${FONT} font-size="10" text-anchor="end" fill="#555"`),
      );
    }
    const slot = plotWidth / metrics.length;
    const barWidth = Math.min(26, (slot - 16) / Math.max(1, group.modes.length));
    metrics.forEach((metric, m) => {
      const slotLeft = plotLeft + m * slot + (slot - barWidth * group.modes.length) / 2;
      group.modes.forEach((mode, i) => {
        const value = mode.values[m] ?? 0;
        const colour = PALETTE[modes.indexOf(mode.mode) % PALETTE.length];
        const bx = slotLeft + i * barWidth;
        parts.push(
          `<rect x="${bx.toFixed(1)}" y="${y(value).toFixed(1)}" width="${(barWidth - 2).toFixed(1)}" height="${(y(0) - y(value)).toFixed(1)}" fill="${colour}"><title>${escapeXml(`${group.title} ${mode.mode} ${metric}: ${value.toFixed(3)}`)}</title></rect>`,
          text(bx + (barWidth - 2) / 2, y(value) - 3, value.toFixed(2).replace(/^0/, ''), `${FONT} font-size="9" text-anchor="middle" fill="#333"`),
        );
      });
      parts.push(text(plotLeft + m * slot + slot / 2, y(0) + 16, metric, `${FONT} font-size="12" text-anchor="middle"`));
    });
  });
  if (groups.length === 0) parts.push(text(20, top + 14, 'no hit-rate runs in this run', `${FONT} font-size="12" fill="#777"`));
  return { height: top + Math.max(1, groups.length) * groupHeight, body: parts.join('\n') };
}

function latencyPanel(series: readonly LatencySeries[]): Panel {
  const top = 34;
  const plotLeft = 70;
  const plotTop = top + 10;
  const plotWidth = WIDTH - plotLeft - 320;
  const plotHeight = 220;
  const parts: string[] = [text(20, 22, 'Query latency p50 vs catalog size (log scale, ms)', `${FONT} font-size="15" font-weight="600"`)];
  const sizes = [...new Set(series.flatMap((s) => s.points.map((p) => p.size)))].sort((a, b) => a - b);
  const values = series.flatMap((s) => s.points.map((p) => p.ms)).filter((v) => v > 0);
  if (sizes.length === 0 || values.length === 0) {
    parts.push(text(20, top + 14, 'no scaling runs in this run', `${FONT} font-size="12" fill="#777"`));
    return { height: top + 40, body: parts.join('\n') };
  }
  const lo = Math.floor(Math.log10(Math.min(...values)));
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(...values))));
  const x = (size: number): number => (sizes.length === 1 ? plotLeft + plotWidth / 2 : plotLeft + (sizes.indexOf(size) / (sizes.length - 1)) * plotWidth);
  const y = (ms: number): number => plotTop + plotHeight * (1 - (Math.log10(Math.max(ms, 10 ** lo)) - lo) / (hi - lo));
  for (let e = lo; e <= hi; e++) {
    const ms = 10 ** e;
    parts.push(
      `<line x1="${plotLeft}" y1="${y(ms)}" x2="${plotLeft + plotWidth}" y2="${y(ms)}" stroke="#e5e5e5"/>`,
      text(plotLeft - 6, y(ms) + 4, ms >= 1 ? `${ms}` : ms.toPrecision(1), `${FONT} font-size="10" text-anchor="end" fill="#555"`),
    );
  }
  for (const size of sizes) {
    parts.push(text(x(size), plotTop + plotHeight + 18, `${size.toLocaleString('en-US')} skills`, `${FONT} font-size="11" text-anchor="middle"`));
  }
  series.forEach((s, i) => {
    const colour = PALETTE[i % PALETTE.length];
    const points = [...s.points].filter((p) => p.ms > 0).sort((a, b) => a.size - b.size);
    if (points.length > 1) {
      parts.push(
        `<polyline fill="none" stroke="${colour}" stroke-width="2" points="${points.map((p) => `${x(p.size).toFixed(1)},${y(p.ms).toFixed(1)}`).join(' ')}"/>`,
      );
    }
    for (const p of points) {
      parts.push(
        `<circle cx="${x(p.size).toFixed(1)}" cy="${y(p.ms).toFixed(1)}" r="3.5" fill="${colour}"><title>${escapeXml(`${s.name} @ ${p.size}: ${p.ms.toFixed(3)} ms`)}</title></circle>`,
      );
    }
    const ly = plotTop + 12 + i * 18;
    parts.push(`<rect x="${WIDTH - 300}" y="${ly - 10}" width="12" height="12" fill="${colour}"/>`, text(WIDTH - 282, ly, s.name, `${FONT} font-size="12"`));
  });
  return { height: plotTop + plotHeight + 34, body: parts.join('\n') };
}

export function renderChart(input: ChartInput): string {
  const header: Panel = {
    height: 58,
    body: [text(20, 28, input.title, `${FONT} font-size="20" font-weight="700"`), text(20, 48, input.subtitle, `${FONT} font-size="12" fill="#555"`)].join(
      '\n',
    ),
  };
  const panels = [header, ratioPanel(input.ratios), hitRatePanel(input.hitRateMetrics, input.hitRates), latencyPanel(input.latency)];
  let offset = 0;
  const groups = panels.map((panel) => {
    const group = `<g transform="translate(0,${offset})">\n${panel.body}\n</g>`;
    offset += panel.height + 16;
    return group;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${offset}" viewBox="0 0 ${WIDTH} ${offset}">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    ...groups,
    '</svg>',
    '',
  ].join('\n');
}
