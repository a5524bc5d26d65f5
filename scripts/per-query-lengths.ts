/**
 * One `eval-shared.ts --per-query` run's answerable requests by length class (words split on white
 * space, r12's classes (fixtures/eval/README.md): short ≤ 6, medium 7–12, long 13–40, very long > 40): per suite and mode, ranked hit@1 /
 * hit@5 / MRR and shown hit@1 / hit@5, and hit@1 counting only each request's first label. The thirteenth round reports its test by it (docs/retrieval.md).
 *
 *   npx tsx scripts/per-query-lengths.ts DIR
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { relevantRanks } from '../src/eval/metrics.js';
import type { QueryRecord } from '../src/eval/run.js';

const words = (text: string): number => text.split(/\s+/u).filter((word) => word !== '').length;
const CLASSES: readonly (readonly [string, (n: number) => boolean])[] = [
  ['short (≤ 6)', (n) => n <= 6],
  ['medium (7–12)', (n) => n >= 7 && n <= 12],
  ['long (13–40)', (n) => n >= 13 && n <= 40],
  ['very long (> 40)', (n) => n > 40],
];

const [dir] = process.argv.slice(2);
if (dir === undefined) throw new Error('usage: per-query-lengths.ts DIR');
for (const file of readdirSync(dir).filter((name) => name.endsWith('.jsonl'))) {
  const records = readFileSync(join(dir, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as QueryRecord)
    .filter((record) => record.relevant.length > 0);
  const cells = CLASSES.map(([name, fits]) => {
    const inClass = records.filter((record) => fits(words(record.query)));
    const n = Math.max(1, inClass.length);
    const rankOf = (record: QueryRecord, view: 'ranked' | 'shown'): number =>
      Math.min(Number.POSITIVE_INFINITY, ...relevantRanks(record[view], record.relevant));
    const share = (view: 'ranked' | 'shown', within: number): string => (inClass.filter((record) => rankOf(record, view) <= within).length / n).toFixed(3);
    const mrr = inClass.reduce((sum, record) => sum + (Number.isFinite(rankOf(record, 'ranked')) ? 1 / rankOf(record, 'ranked') : 0), 0) / n;
    return `${name} ${inClass.length}: ${share('ranked', 1)} / ${share('ranked', 5)} / ${mrr.toFixed(3)}, shown ${share('shown', 1)} / ${share('shown', 5)}`;
  });
  console.log(`${file.replace(/\.jsonl$/, '')} (${records.length} answerable): ${cells.join('; ')}`);
  // A set whose labels list every skill that fully serves a request (r17 on) is also read as if each had its first label alone.
  const firstOnly = records.filter((record) => record.ranked[0]?.id === record.relevant[0] || record.ranked[0]?.name === record.relevant[0]).length;
  const multi = records.filter((record) => record.relevant.length > 1).length;
  console.log(
    `  hit@1 counting only each request's first label: ${(firstOnly / Math.max(1, records.length)).toFixed(3)} (${firstOnly}); ${multi} requests have more than one label`,
  );
}
