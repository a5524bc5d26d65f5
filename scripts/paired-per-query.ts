/**
 * Two `eval-shared.ts --per-query` runs compared request by request: for each suite and mode, the
 * answerable requests one run ranks right first and the other does not (hit@1), and the same for the
 * first shown hit (shown hit@1) and a relevant skill among the first five shown (shown hit@5), with an
 * exact two-sided sign test over those discordant requests; then each run's mean shown length and
 * its no-skill messages shown nothing per length class. The adoption rules in docs/retrieval.md judge a change by it.
 *
 *   npx tsx scripts/paired-per-query.ts BEFORE_DIR AFTER_DIR
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { relevantRanks } from '../src/eval/metrics.js';
import type { QueryRecord } from '../src/eval/run.js';

/** Two-sided exact sign test: the probability, under a fair coin, of a split at least as uneven as `wins` against `losses`. */
function signTest(wins: number, losses: number): number {
  const n = wins + losses;
  if (n === 0) return 1;
  const k = Math.min(wins, losses);
  let tail = 0;
  let term = 0.5 ** n; // C(n, 0) / 2^n
  for (let i = 0; i <= k; i += 1) {
    tail += term;
    term = (term * (n - i)) / (i + 1);
  }
  return Math.min(1, 2 * tail);
}

/** A message's words, split on white space; the length classes no-skill abstention is reported by (docs/retrieval.md, twelfth round). */
const words = (text: string): number => text.split(/\s+/u).filter((word) => word !== '').length;
const LENGTH_CLASSES: readonly (readonly [string, (n: number) => boolean])[] = [
  ['short (≤ 4 words)', (n) => n <= 4],
  ['medium (5–12)', (n) => n >= 5 && n <= 12],
  ['long (> 12)', (n) => n > 12],
  // A subset of long: the fresh sets from r12 on carry task-statement-length messages (docs/retrieval.md, round 7).
  ['of them very long (> 40)', (n) => n > 40],
];

const [before, after] = process.argv.slice(2);
if (before === undefined || after === undefined) throw new Error('usage: paired-per-query.ts BEFORE_DIR AFTER_DIR');
const read = (dir: string, file: string): Map<string, QueryRecord> =>
  new Map(
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as QueryRecord)
      .map((record) => [record.id, record]),
  );
const first = (list: QueryRecord['ranked'], relevant: readonly string[], within: number): boolean =>
  relevantRanks(list, relevant).some((rank) => rank <= within);

for (const file of readdirSync(before).filter((name) => name.endsWith('.jsonl'))) {
  const a = read(before, file);
  const b = read(after, file);
  const cells: string[] = [];
  for (const [label, view, within] of [
    ['hit@1', 'ranked', 1],
    ['shown hit@1', 'shown', 1],
    ['shown hit@5', 'shown', 5],
  ] as const) {
    let won = 0;
    let lost = 0;
    for (const [id, was] of a) {
      const now = b.get(id);
      if (now === undefined) throw new Error(`${file}: ${id} is missing from ${after}`);
      if (was.relevant.length === 0) continue;
      const hadIt = first(was[view], was.relevant, within);
      const hasIt = first(now[view], now.relevant, within);
      if (hasIt && !hadIt) won += 1;
      if (hadIt && !hasIt) lost += 1;
    }
    cells.push(`${label} won ${won} / lost ${lost} (p ${signTest(won, lost).toFixed(3)})`);
  }
  console.log(`${file.replace(/\.jsonl$/, '')}: ${cells.join('; ')}`);
  for (const [side, records] of [
    ['before', a],
    ['after', b],
  ] as const) {
    const answerable = [...records.values()].filter((record) => record.relevant.length > 0);
    const length = answerable.reduce((sum, record) => sum + Math.min(5, record.shown.length), 0) / Math.max(1, answerable.length);
    const classes = LENGTH_CLASSES.map(([name, fits]) => {
      const noSkill = [...records.values()].filter((record) => record.relevant.length === 0 && fits(words(record.query)));
      return `${name} ${noSkill.filter((record) => record.shown.length === 0).length}/${noSkill.length}`;
    });
    console.log(`  ${side}: mean shown length ${length.toFixed(2)}; no-skill shown nothing by length: ${classes.join(', ')}`);
  }
}
