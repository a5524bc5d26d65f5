import type { SearchHit } from '../types.js';

/** The `query --json` hit shape (SPEC §7): exactly these keys, in this order. */
export interface JsonHit {
  readonly name: string;
  readonly source: string;
  readonly score: number;
  readonly path: string;
}

export function toJsonHit(hit: SearchHit): JsonHit {
  return { name: hit.skill.name, source: hit.skill.source, score: round(hit.score, 4), path: hit.skill.path };
}

export function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** Left-aligned columns separated by two spaces; the last column is never padded. */
export function table(rows: readonly (readonly string[])[], alignRight: readonly number[] = []): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) =>
    row
      .map((cell, i) => {
        if (i === row.length - 1) return cell;
        const width = widths[i] ?? 0;
        return alignRight.includes(i) ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  ')
      .trimEnd(),
  );
}

/** Human `query` output: rank, name, score, source, path; one hit per line, best first. */
export function formatHits(hits: readonly SearchHit[]): string[] {
  return table(
    hits.map((hit, i) => [`${i + 1}.`, hit.skill.name, hit.score.toFixed(3), hit.skill.source, hit.skill.path]),
    [0, 2],
  );
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
