/**
 * Why everyday messages get a suggestion: each no-skill message of a library set that today's
 * engine (replayed as `skills-cases.ts` replays it) shows a hit, with the entry that scored it
 * (common, or the long-message entry), its first hit and relevance, and the evidence that lifted
 * it: the feature adding most to the answerable model's logit above an average message
 * (weight × standardised value) and the first hit's name words the message holds; tallied by cause
 * and length class (docs/retrieval.md, "Everyday messages, round 12").
 *
 *   npx tsx scripts/read-everyday-shown.ts [--suite library-r16]
 */
import { parseArgs } from 'node:util';
import { BUNDLED_RELEVANCE, longEntry, messageEntries, relevanceFor, shownCount } from '../src/search/abstention.js';
import { ENGINE_DEFAULTS } from '../src/search/index.js';
import { featureRows, nameWords, relevance, type LogisticModel } from '../src/search/relevance.js';
import type { SuiteName } from './eval-suites.js';
import { KIND, libraryCases } from './skills-cases.js';

const { values } = parseArgs({ strict: true, options: { suite: { type: 'string', default: 'library-r16' }, sample: { type: 'string', default: '500' } } });
const models = relevanceFor(ENGINE_DEFAULTS.relevance, KIND);
const cases = await libraryCases([values.suite as SuiteName], Number(values.sample), 'use-lite');

const CLASSES: readonly (readonly [string, (n: number) => boolean])[] = [
  ['short', (n) => n <= 6],
  ['medium', (n) => n >= 7 && n <= 12],
  ['long', (n) => n >= 13 && n <= 40],
  ['very long', (n) => n > 40],
];
const classOf = (words: number): string => CLASSES.find(([, fits]) => fits(words))![0];

/** Each feature's share of the logit: weight × standardised value, largest first. */
function contributions(model: LogisticModel, row: readonly number[]): [string, number][] {
  return model.features
    .map((name, j): [string, number] => [name, (model.weights[j]! * (row[j]! - model.mean[j]!)) / model.scale[j]!])
    .sort((a, b) => b[1] - a[1]);
}

const tallies = new Map<string, Map<string, number>>();
const count = (table: string, key: string): void => {
  const row = tallies.get(table) ?? new Map<string, number>();
  row.set(key, (row.get(key) ?? 0) + 1);
  tallies.set(table, row);
};
let everyday = 0;
let suggested = 0;
for (const row of cases) {
  if (row.answerable) continue;
  everyday += 1;
  const long = longEntry(models, 'hybrid', row.text, row.skills);
  const model = long?.model ?? models.models.hybrid;
  const threshold = long?.thresholds.balanced ?? models.thresholds.hybrid.balanced;
  const scores = row.ranked.length === 0 ? [] : relevance(model, row.ranked, row.query);
  const shown = row.named ? 1 : row.gated ? 0 : shownCount(scores, threshold, ENGINE_DEFAULTS.shownCut, ENGINE_DEFAULTS.k);
  if (shown === 0) continue;
  suggested += 1;
  const first = row.ranked[0]!;
  const [features] = featureRows(row.ranked.slice(0, 1), row.query, model.answerable.features);
  const top = contributions(model.answerable, features!);
  const named = [...nameWords(first.name)].filter((word) => row.query.terms.has(word));
  const entry = long ? 'long entry' : row.words > 12 ? 'common (past the long reach)' : 'common';
  const lexical =
    (first.lexical ?? 0) > 0 ? `matched ${Math.round((first.coverage ?? 0) * row.query.terms.size)}/${row.query.terms.size} words` : 'no lexical match';
  const cls = classOf(row.words);
  count('entry', `${cls}: ${entry}`);
  count('largest lift', `${cls}: ${top[0]![0]}`);
  count('largest lift (all classes)', top[0]![0]);
  count('name words of the first hit in the message', named.length > 0 ? 'yes' : 'no');
  count('first hit matched lexically', (first.lexical ?? 0) > 0 ? 'yes' : 'no');
  count('margin over the threshold', scores[0]! - threshold < 0.05 ? 'under 0.05' : scores[0]! - threshold < 0.15 ? '0.05 to 0.15' : '0.15 or more');
  console.log(
    `${row.words}w ${cls} | ${entry} t ${threshold} | ${first.name} ${scores[0]!.toFixed(2)} | ${lexical}; name words ${named.join(' ') || '-'} | lift ${top
      .slice(0, 3)
      .map(([name, value]) => `${name} ${value.toFixed(2)}`)
      .join(', ')} | ${row.text.slice(0, 110)}`,
  );
}
console.log(`\n${values.suite}: ${suggested} of ${everyday} everyday messages get a suggestion`);
for (const [table, row] of tallies) {
  console.log(`${table}:`);
  for (const [key, n] of [...row].sort((a, b) => b[1] - a[1])) console.log(`  ${key}: ${n}`);
}
const entries = messageEntries(BUNDLED_RELEVANCE.skills);
console.log(`(the bundled message entries: ${entries.map((entry) => `${entry.words + 1} to ${entry.maxWords} words`).join(', ') || 'none'})`);
