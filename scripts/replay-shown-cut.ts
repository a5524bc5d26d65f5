/**
 * Replays the shown cut (`shownCut`, `abstention.ts`) over `eval-shared.ts --per-query` records of library
 * requests, for the seventeenth round's candidates (docs/retrieval.md, "The shown list on long task statements"):
 * each record's ranked relevance scores and the skills kind's threshold give the shown count a cut would give. A
 * record that showed nothing stays empty (the cut never touches the first hit). The incumbent's replay must
 * reproduce every record's shown length, else the script stops. Named skills (shown alone, scored 1) are kept as shown.
 *
 *   npx tsx scripts/replay-shown-cut.ts --min-words 40 DIR/library-tasks-hybrid.jsonl DIR/library-r2-hybrid.jsonl …
 *
 * Deterministic (no sampling, no seed). Counts: answerable requests over `--min-words` words (every request of a
 * `library-tasks` file), their shown hit@5, mean shown length and shown recall; no-skill requests shown nothing.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { QueryRecord } from '../src/eval/run.js';
import { BUNDLED_RELEVANCE, longEntry, relevanceFor, shownCount, shownCutFor, thresholdFor, type ShownCut } from '../src/search/abstention.js';
import { ENGINE_DEFAULTS } from '../src/search/options.js';

const K = ENGINE_DEFAULTS.k;
const LIBRARY_SIZE = 438;
const models = relevanceFor(BUNDLED_RELEVANCE, 'skills');
const args = process.argv.slice(2);
const flag = args.indexOf('--min-words');
const minWords = flag === -1 ? 40 : Number(args[flag + 1]);
if (!Number.isInteger(minWords) || minWords < 0) throw new Error(`--min-words: expected a whole number, got ${args[flag + 1]}`);
const files = flag === -1 ? args : args.filter((_, i) => i !== flag && i !== flag + 1);
if (files.length === 0) throw new Error('replay-shown-cut: name one or more --per-query hybrid JSONL files');

const wordCount = (text: string): number => text.split(/\s+/u).filter((word) => word !== '').length;
const records = files.flatMap((file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as QueryRecord)
    .filter((record) => basename(file).startsWith('library-tasks') || wordCount(record.query) > minWords),
);

function shownBy(record: QueryRecord, cut: ShownCut): number {
  if (record.shown.length === 0) return 0;
  // Skills the request names are shown alone, scored 1: the cut does not apply.
  if (record.shown.every((hit) => hit.score === 1)) return Math.min(K, record.shown.length);
  const threshold = thresholdFor(models, 'hybrid', 'balanced', longEntry(models, 'hybrid', record.query, LIBRARY_SIZE));
  return shownCount(
    record.ranked.map((hit) => hit.score),
    threshold,
    shownCutFor(cut, 'skills', record.query),
    K,
  );
}

const today = ENGINE_DEFAULTS.shownCut;
const mismatched = records.filter((record) => shownBy(record, { ...today, longRelative: today.relative }) !== Math.min(K, record.shown.length));
if (mismatched.length > 0) throw new Error(`replay-shown-cut: today's cut does not reproduce ${mismatched.length} records (first ${mismatched[0]!.id})`);

const answerable = records.filter((record) => record.relevant.length > 0);
const everyday = records.filter((record) => record.relevant.length === 0);
console.log(`${answerable.length} answerable requests, ${everyday.length} no-skill (over ${minWords} words; library-tasks whole)`);
console.log('| longWords | longRelative | shown hit@5 | mean shown length | shown recall | no-skill shown nothing |');
console.log('|---|---|---|---|---|---|');
for (const longWords of [40, 80]) {
  for (const longRelative of [0.1, 0.05, 0.03, 0.02]) {
    const cut: ShownCut = { ...today, longWords, longRelative };
    let hits = 0;
    let length = 0;
    let recall = 0;
    for (const record of answerable) {
      const shown = new Set(record.ranked.slice(0, shownBy(record, cut)).map((hit) => hit.name));
      const found = record.relevant.filter((name) => shown.has(name)).length;
      hits += found > 0 ? 1 : 0;
      length += shown.size;
      recall += found / Math.min(K, record.relevant.length);
    }
    const blank = everyday.filter((record) => shownBy(record, cut) === 0).length;
    console.log(
      `| ${longWords} | ${longRelative} | ${hits} | ${(length / answerable.length).toFixed(3)} | ${(recall / answerable.length).toFixed(4)} | ${blank} / ${everyday.length} |`,
    );
  }
}
