import path from 'node:path';
import { roundExplanation } from '../integrations/explanation.js';
import type { HitExplanation, SearchHit } from '../types.js';
import { escapeForTerminal } from '../util/escape.js';
import { within } from '../util/paths.js';

/** The `query --json` hit (SPEC §7): exactly these keys, in this order, plus `why` with `--explain`. */
export function toJsonHit(hit: SearchHit) {
  return {
    name: hit.skill.name,
    source: hit.skill.source,
    score: round(hit.score, 4),
    path: hit.skill.path,
    ...(hit.why === undefined ? {} : { why: roundExplanation(hit.why) }),
  };
}

/** `query --explain` for one hit, indented under it: words matched per field, the rankers' evidence, the score against the threshold. */
export function formatExplanation(why: HitExplanation, score: number): string[] {
  const fields = Object.entries(why.matched).map(([field, terms]) => `${field} ${terms.join(', ')}`);
  const lines = [`matched: ${fields.length === 0 ? 'no words (found by meaning)' : fields.join('; ')}`];
  if (why.lexical !== undefined) lines.push(`lexical: BM25 ${why.lexical.bm25.toFixed(2)}, ${Math.round(why.lexical.coverage * 100)}% of the message's words`);
  if (why.dense !== undefined) lines.push(`dense: cosine ${why.dense.cosine.toFixed(3)}, centred ${why.dense.centered.toFixed(3)}`);
  // Every hit printed is shown: one under the threshold is shown for scoring close to the first.
  const verdict = why.passed
    ? `shown: ${score.toFixed(3)} ≥ threshold ${why.threshold.toFixed(3)}`
    : `shown beside the first: ${score.toFixed(3)} < threshold ${why.threshold.toFixed(3)}`;
  if (why.named === true) lines.push(`named exactly in the message: first, score 1 (${verdict})`);
  else {
    const order = why.order === undefined ? '' : `order ${why.order.toFixed(3)}; `;
    const factors =
      why.answerable === undefined || why.fits === undefined ? '' : `P(answerable) ${why.answerable.toFixed(3)} × P(fits) ${why.fits.toFixed(3)}; `;
    lines.push(`relevance: ${order}${factors}${verdict}`);
  }
  return lines.map((text) => `    ${text}`);
}

export function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** Columns separated by two spaces, left-aligned but for those in `alignRight`; a last left-aligned column is not padded. */
export function table(rows: readonly (readonly string[])[], alignRight: readonly number[] = []): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) =>
    row
      .map((cell, i) => {
        if (alignRight.includes(i)) return cell.padStart(widths[i]!);
        return i === row.length - 1 ? cell : cell.padEnd(widths[i]!);
      })
      .join('  ')
      .trimEnd(),
  );
}

/** Human `query` output: rank, name, score, source, path; one hit per line, best first. */
export function formatHits(hits: readonly SearchHit[]): string[] {
  return table(
    hits.map((hit, i) => [`${i + 1}.`, escapeForTerminal(hit.skill.name), hit.score.toFixed(3), hit.skill.source, escapeForTerminal(hit.skill.path)]),
    [0, 2],
  );
}

/** `file` as `~/…` when it is under `home`. */
export function shown(file: string, home: string): string {
  return file !== home && within(file, home) ? `~/${path.relative(home, file)}` : file;
}
