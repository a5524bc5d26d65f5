/**
 * The hand-made reading of one fresh set's first-place misses, tallied: every answerable request a hybrid
 * `eval-shared.ts --per-query` run does not rank right first must have one line in the classification file
 * (fixtures/readings/, tab-separated: id, class, evidence, note), and no other request may; then the counts per
 * class (L: the first hit would fully serve the request too; N: a right skill 2nd–5th; D: 6th or lower), per
 * class and length class, per class and evidence, how many of each lexical mode ranked right first, and hit@1
 * with the L requests counted as served. The eighteenth round's audit (docs/retrieval.md) is this script's output.
 *
 *   npx tsx scripts/read-miss-classes.ts DIR SUITE CLASSIFICATION.tsv
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { relevantRanks } from '../src/eval/metrics.js';
import type { QueryRecord } from '../src/eval/run.js';

const CLASSES = ['L', 'N', 'D'] as const;
type MissClass = (typeof CLASSES)[number];
const LENGTHS: readonly (readonly [string, (n: number) => boolean])[] = [
  ['short (≤ 6)', (n) => n <= 6],
  ['medium (7–12)', (n) => n >= 7 && n <= 12],
  ['long (13–40)', (n) => n >= 13 && n <= 40],
  ['very long (> 40)', (n) => n > 40],
];

const [dir, suite, file] = process.argv.slice(2);
if (dir === undefined || suite === undefined || file === undefined) throw new Error('usage: read-miss-classes.ts DIR SUITE CLASSIFICATION.tsv');

const records = (mode: string): Map<string, QueryRecord> =>
  new Map(
    readFileSync(join(dir, `${suite}-${mode}.jsonl`), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as QueryRecord)
      .filter((record) => record.relevant.length > 0)
      .map((record) => [record.id, record]),
  );
const rankOf = (record: QueryRecord): number => Math.min(Number.POSITIVE_INFINITY, ...relevantRanks(record.ranked, record.relevant));
const words = (text: string): number => text.split(/\s+/u).filter((word) => word !== '').length;

const hybrid = records('hybrid');
const lexical = records('lexical');
const classified = new Map<string, { missClass: MissClass; evidence: string }>();
for (const [at, line] of readFileSync(file, 'utf8').split('\n').entries()) {
  if (line.startsWith('#') || line.startsWith('id\t') || line.trim() === '') continue;
  const [id, missClass, evidence] = line.split('\t');
  if (!CLASSES.includes(missClass as MissClass) || evidence === undefined || evidence === '')
    throw new Error(`${file}:${at + 1}: expected id, class (L, N or D), evidence, note`);
  if (classified.has(id!)) throw new Error(`${file}:${at + 1}: ${id} classified twice`);
  classified.set(id!, { missClass: missClass as MissClass, evidence });
}

const misses = [...hybrid.values()].filter((record) => rankOf(record) !== 1);
const unread = misses.filter((record) => !classified.has(record.id)).map((record) => record.id);
const notMissed = [...classified.keys()].filter((id) => !misses.some((record) => record.id === id));
if (unread.length > 0 || notMissed.length > 0)
  throw new Error(
    `${file} does not match the run in ${dir}: unclassified misses ${unread.join(' ') || 'none'}; classified but not missed ${notMissed.join(' ') || 'none'}`,
  );

const count = new Map<string, number>();
const add = (key: string): void => {
  count.set(key, (count.get(key) ?? 0) + 1);
};
for (const record of misses) {
  const { missClass, evidence } = classified.get(record.id)!;
  const length = LENGTHS.find(([, fits]) => fits(words(record.query)))![0];
  add(missClass);
  add(`${missClass}\t${length}`);
  add(`${missClass}\tevidence ${evidence}`);
  if (rankOf(lexical.get(record.id)!) === 1) add(`${missClass}\tlexical first`);
  const rank = rankOf(record);
  if (missClass !== 'D' && (rank < 2 || rank > 5)) add(`${missClass}\tright skill not 2nd–5th`);
  if (missClass === 'D' && rank <= 5) add(`${missClass}\tright skill within the first five`);
}
const answerable = hybrid.size;
const first = answerable - misses.length;
const share = (n: number): string => `${n} of ${answerable} (${(n / answerable).toFixed(3)})`;
console.log(`${suite}: ${answerable} answerable, hybrid hit@1 ${share(first)}; ${misses.length} misses classified`);
for (const missClass of CLASSES) console.log(`${missClass}\t${count.get(missClass) ?? 0}`);
console.log(`hit@1 with the L requests counted as served: ${share(first + (count.get('L') ?? 0))}`);
console.log(`hit@1 if every N were also first: ${share(first + (count.get('L') ?? 0) + (count.get('N') ?? 0))}`);
for (const [key, n] of [...count].filter(([key]) => key.includes('\t')).sort()) console.log(`${key}\t${n}`);
