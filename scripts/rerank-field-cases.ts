/**
 * Where the bundled re-ranker's first hit and BM25's first differ and exactly one of them is labelled: which was right, split by
 * whether BM25's first matched the request's rarest word in its name (`LexicalMatch.matchedWords`), with each suite's share of
 * matched words found in the name, in the body and in the body alone. Train and dev cases only (`ranking-cases.ts`).
 * docs/retrieval.md, "Which field matched".
 *
 *   npx tsx scripts/rerank-field-cases.ts [--sample 500]
 */
import { parseArgs } from 'node:util';
import { BUNDLED_RERANK, rerankedOrders, rerankRows } from '../src/search/rerank.js';
import { LEXICAL_FIELDS } from '../src/types.js';
import type { SuiteName } from './eval-suites.js';
import { asEngineSees, ENGINE_FUSION, fusedOrders, rankingCases, replayBoundaries, rerankInput } from './ranking-cases.js';

const { values } = parseArgs({ strict: true, options: { sample: { type: 'string', default: '500' } } });
const SUITES: readonly SuiteName[] = ['metatool', 'seal', 'library'];
const NAME = 1 << LEXICAL_FIELDS.indexOf('name');
const BODY = 1 << LEXICAL_FIELDS.indexOf('body');
const cases = (await rankingCases(SUITES, ['train', 'dev'], Number(values.sample))).map((c) => asEngineSees(c));

for (const suite of SUITES) {
  const mine = cases.filter((c) => c.suite === suite);
  let words = 0;
  let inName = 0;
  let inBody = 0;
  let bodyOnly = 0;
  for (const hit of mine.flatMap((c) => c.candidates)) {
    for (const { fields } of hit.matchedWords ?? []) {
      words += 1;
      if ((fields & NAME) !== 0) inName += 1;
      if ((fields & BODY) !== 0) inBody += 1;
      if (fields === BODY) bodyOnly += 1;
    }
  }
  /** [BM25's first right, the model's first right], by whether BM25's first matched the rarest word in its name. */
  const tally = { inName: [0, 0], elsewhere: [0, 0] };
  for (const c of mine) {
    if (!c.answerable || c.namedRelevant) continue;
    const input = rerankInput(c, fusedOrders(c, { ...ENGINE_FUSION, centring: true }));
    const orders = rerankedOrders(input, c.query.terms, BUNDLED_RERANK);
    replayBoundaries(c, orders, ENGINE_FUSION.boundaries);
    const first = orders.indexOf(Math.max(...orders));
    const matched = c.candidates.map((_, i) => i).filter((i) => (c.candidates[i]!.lexical ?? 0) > 0);
    const lexicalFirst = matched.sort((a, b) => c.candidates[b]!.lexical! - c.candidates[a]!.lexical! || a - b)[0];
    if (lexicalFirst === undefined || lexicalFirst === first || c.labels[lexicalFirst] === c.labels[first]) continue;
    const [rarest, rarestName] = rerankRows(input, c.query.terms, ['rarest', 'rarestName'], [lexicalFirst])[0]!;
    const row = rarest! > 0 && rarestName! >= rarest! - 1e-12 ? tally.inName : tally.elsewhere;
    row[c.labels[lexicalFirst] ? 0 : 1]! += 1;
  }
  const share = (n: number): string => (words === 0 ? '–' : `${((100 * n) / words).toFixed(1)}%`);
  console.log(
    `${suite} (${mine.length} cases): matched words in the name ${share(inName)}, in the body ${share(inBody)}, body only ${share(bodyOnly)}; ` +
      `BM25's first right / the model's first right: rarest word in BM25's first's name ${tally.inName.join(' / ')}, otherwise ${tally.elsewhere.join(' / ')}`,
  );
}
