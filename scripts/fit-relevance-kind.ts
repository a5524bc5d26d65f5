/**
 * Fits and chooses the skill-library entry of the relevance models (`relevance-model.json`,
 * `kinds.skills`, hybrid mode) with its shown cut, by the thirteenth round's rule (docs/retrieval.md,
 * "Everyday messages, round 5"): leave-one-set-out over `library` train + dev and every split of
 * `library-r2` … `library-r10` plus the small-catalogue requests (`small-catalogues.ts`, each
 * catalogue in one fold), the cached candidates (`ranking-cases.ts`) replayed as the engine ranks
 * and shows them (bundled per-kind re-rankers, boundaries, relevance, shown cut, everyday gate).
 * The refit's operating point and shown cut are chosen together: the point showing nothing for the
 * most pooled no-skill messages whose pooled shown hit@5 and hit@1 stay within `--allowance` of the
 * incumbent's (today's `kinds.skills`) and under which no small-catalogue request loses its shown
 * skill. Deterministic (Newton from zero). The relevance model reads the re-ranker's order, so
 * re-run this after `rerank-model.json` changes.
 *
 *   npx tsx scripts/fit-relevance-kind.ts [--write]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { relevanceFor, shownCount, type RelevanceModels, type ShownCut } from '../src/search/abstention.js';
import { ENGINE_DEFAULTS } from '../src/search/index.js';
import { BUNDLED_RERANKERS, type CatalogKind } from '../src/search/rerank.js';
import { featureRows, MODE_FEATURES, ORDERING_FEATURES, relevance, type RelevanceModel } from '../src/search/relevance.js';
import { freshLibrarySetsThrough, SPLIT_SEED, type SuiteName } from './eval-suites.js';
import { libraryReplay, REPLAY_DEPTH, REPLAY_KIND, type ReplayCase } from './library-replay.js';
import { fitLogistic, L2, round } from './logistic-fit.js';

const { values } = parseArgs({
  strict: true,
  options: {
    write: { type: 'boolean', default: false },
    sample: { type: 'string', default: '500' },
    model: { type: 'string', default: 'use-lite' },
    /** Shown hit@5 and hit@1 a `balanced` point may lose against the incumbent's, as a share of the pooled answerable requests. */
    allowance: { type: 'string', default: '0.005' },
    /** The same for `strict`. */
    'strict-allowance': { type: 'string', default: '0.03' },
    /** The refit must show nothing for more no-skill messages than the incumbent by this share of them to be taken. */
    'refit-margin': { type: 'string', default: '0.02' },
  },
});

const K = ENGINE_DEFAULTS.k;
const SETS: readonly SuiteName[] = freshLibrarySetsThrough('library-r10');
const FILE = join(import.meta.dirname, '..', 'src', 'search', 'relevance-model.json');
/** The incumbent: today's skills entry, its hybrid model, thresholds and shown cut. */
const incumbent = relevanceFor(ENGINE_DEFAULTS.relevance, REPLAY_KIND);
const incumbentThreshold = incumbent.thresholds.hybrid.balanced;
/** The engine reads one shown cut for every kind (`EngineOptions.shownCut`). */
const incumbentCut: ShownCut = ENGINE_DEFAULTS.shownCut;

/** A replayed case (`library-replay.ts`); the relevance fit reads its evidence, labels and gate. */
type Case = ReplayCase;

const { library, groups, small } = await libraryReplay(SETS, Number(values.sample), values.model);
const cases = [...library, ...small];

interface Outcome {
  answerable: number;
  shown1: number;
  shown5: number;
  blank: number;
  length: number;
  negatives: number;
  abstained: number;
  /** Small-catalogue requests whose shown list lacks their skill. */
  smallLost: number;
}

/** What the engine shows for each case at `threshold` and `cut`, given each case's relevance scores. */
function outcome(rows: readonly Case[], scores: ReadonlyMap<Case, readonly number[]>, threshold: number, cut: ShownCut): Outcome {
  const o: Outcome = { answerable: 0, shown1: 0, shown5: 0, blank: 0, length: 0, negatives: 0, abstained: 0, smallLost: 0 };
  for (const row of rows) {
    // A named skill is shown alone, whatever the relevance.
    const count = row.named ? 1 : row.gated ? 0 : shownCount(scores.get(row)!, threshold, cut, K);
    const shown = row.named ? [row.namedRelevant] : row.labels.slice(0, count);
    if (row.small) {
      if (!shown.includes(true)) o.smallLost += 1;
      continue;
    }
    if (!row.answerable) {
      o.negatives += 1;
      if (count === 0) o.abstained += 1;
      continue;
    }
    o.answerable += 1;
    o.length += count;
    if (count === 0) o.blank += 1;
    if (shown[0] === true) o.shown1 += 1;
    if (shown.includes(true)) o.shown5 += 1;
  }
  return o;
}

/** The hybrid answerable and hit models fitted on `rows` (today's recipe, each request weight 1). */
function fit(rows: readonly Case[]): RelevanceModel {
  const hitFeatures = MODE_FEATURES.hybrid;
  const queryFeatures = hitFeatures.filter((name) => !ORDERING_FEATURES.includes(name));
  const train = rows.filter((row) => !row.named && row.ranked.length > 0);
  const answerable = fitLogistic(
    queryFeatures,
    train.map((row) => featureRows(row.ranked.slice(0, 1), row.query, queryFeatures)[0]!),
    train.map((row) => (row.answerable ? 1 : 0)),
    train.map(() => 1),
  );
  const x: number[][] = [];
  const y: number[] = [];
  for (const row of train.filter((one) => one.answerable)) {
    featureRows(row.ranked, row.query, hitFeatures).forEach((features, i) => {
      x.push(features);
      y.push(row.labels[i] ? 1 : 0);
    });
  }
  return {
    answerable,
    hit: fitLogistic(
      hitFeatures,
      x,
      y,
      x.map(() => 1),
    ),
  };
}

const scoresUnder = (model: RelevanceModel, rows: readonly Case[]): Map<Case, number[]> =>
  new Map(rows.map((row) => [row, row.ranked.length === 0 ? [] : relevance(model, row.ranked, row.query)]));

/** Out-of-fold scores: each group's cases scored by a model fitted on the other groups. */
function outOfFold(): Map<Case, number[]> {
  const scores = new Map<Case, number[]>();
  for (const group of groups) {
    const model = fit(cases.filter((row) => row.group !== group));
    for (const [row, s] of scoresUnder(
      model,
      cases.filter((one) => one.group === group),
    ))
      scores.set(row, s);
  }
  return scores;
}

const line = (o: Outcome): string =>
  `shown@1 ${(o.shown1 / o.answerable).toFixed(3)} shown@5 ${(o.shown5 / o.answerable).toFixed(3)} (${o.shown5}/${o.answerable}) len ${(o.length / o.answerable).toFixed(2)} blank ${o.blank} nothing for ${o.abstained}/${o.negatives} no-skill; small lost ${o.smallLost}`;

const THRESHOLDS = Array.from({ length: 201 }, (_, i) => round(i * 0.005));
const CUTS: ShownCut[] = [0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5].flatMap((relative) => [0, 0.25, 0.5].map((floor) => ({ relative, floor })));
/** Today's scores, as the replay computed them (`ReplayCase.scores`). */
const incumbentScores = new Map(cases.map((row) => [row, row.scores]));
const baseline = outcome(cases, incumbentScores, incumbentThreshold, incumbentCut);
const todayStrict = outcome(cases, incumbentScores, incumbent.thresholds.hybrid.strict, incumbentCut);
console.log(`cases ${library.length} (${groups.join(', ')}); small-catalogue requests of kind ${REPLAY_KIND}: ${small.length}`);
console.log(`incumbent (t ${incumbentThreshold}, cut ${JSON.stringify(incumbentCut)}): ${line(baseline)}`);
console.log(`incumbent strict (t ${incumbent.thresholds.hybrid.strict}): ${line(todayStrict)}`);

interface Point {
  readonly threshold: number;
  readonly cut: ShownCut;
  readonly outcome: Outcome;
}

const eligible = (o: Outcome, allowance: number): boolean =>
  o.shown5 >= baseline.shown5 - allowance * baseline.answerable && o.shown1 >= baseline.shown1 - allowance * baseline.answerable && o.smallLost === 0;
/** Better: shows nothing for more no-skill messages, then higher shown hit@5, then (by scan order) the lower threshold. */
const better = (o: Outcome, than: Point | undefined): boolean =>
  than === undefined || o.abstained > than.outcome.abstained || (o.abstained === than.outcome.abstained && o.shown5 > than.outcome.shown5);

/** The rule's point over `cuts` × thresholds ≥ `floor`, or undefined when none is eligible. */
function operatingPoint(
  name: string,
  scores: ReadonlyMap<Case, readonly number[]>,
  cuts: readonly ShownCut[],
  allowance: number,
  floor = 0,
): Point | undefined {
  let chosen: Point | undefined;
  for (const cut of cuts)
    for (const threshold of THRESHOLDS) {
      if (threshold < floor) continue;
      const o = outcome(cases, scores, threshold, cut);
      if (eligible(o, allowance) && better(o, chosen)) chosen = { threshold, cut, outcome: o };
    }
  console.log(
    `${name}, allowance ${allowance}: ${chosen === undefined ? 'no eligible point' : `t ${chosen.threshold} cut ${JSON.stringify(chosen.cut)}: ${line(chosen.outcome)}`}`,
  );
  return chosen;
}

function perSet(name: string, scores: ReadonlyMap<Case, readonly number[]>, threshold: number, cut: ShownCut): void {
  for (const group of groups)
    console.log(
      `  ${name} ${group}: ${line(
        outcome(
          library.filter((row) => row.group === group),
          scores,
          threshold,
          cut,
        ),
      )}`,
    );
}

const allowance = Number(values.allowance);
const strictAllowance = Number(values['strict-allowance']);

console.log("\nB': refitted with small catalogues, scored out of fold (leave one set out)");
const oof = outOfFold();
const full = fit(cases);
for (const cut of CUTS) {
  // The curve per cut: the best no-skill count within the allowance, ignoring the small bound, and with it.
  const points = THRESHOLDS.map((threshold) => ({ threshold, o: outcome(cases, oof, threshold, cut) }));
  const withinNoBound = points.filter(
    (p) => p.o.shown5 >= baseline.shown5 - allowance * baseline.answerable && p.o.shown1 >= baseline.shown1 - allowance * baseline.answerable,
  );
  const top = withinNoBound.reduce<(typeof points)[number] | undefined>(
    (best, p) => (best === undefined || p.o.abstained > best.o.abstained ? p : best),
    undefined,
  );
  console.log(`  cut ${JSON.stringify(cut)}: within allowance (bound ignored) ${top === undefined ? 'none' : `t ${top.threshold}: ${line(top.o)}`}`);
}
for (const threshold of [0.05, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3, 0.4])
  console.log(`  B' t ${threshold} cut 0.1/0.25: ${line(outcome(cases, oof, threshold, incumbentCut))}`);
const b = operatingPoint("B' balanced", oof, CUTS, allowance);
let bStrict = b && operatingPoint("B' strict", oof, [b.cut], strictAllowance, b.threshold);
// `strict` not looser than today's: raised until it shows nothing for as many pooled no-skill messages.
if (b && bStrict && bStrict.outcome.abstained < todayStrict.abstained) {
  const cut = b.cut;
  const threshold = THRESHOLDS.find((t) => t >= bStrict!.threshold && outcome(cases, oof, t, cut).abstained >= todayStrict.abstained) ?? 1;
  bStrict = { threshold, cut, outcome: outcome(cases, oof, threshold, cut) };
  console.log(`B' strict raised to t ${threshold}: ${line(bStrict.outcome)}`);
}

const takeB = b !== undefined && bStrict !== undefined && b.outcome.abstained - baseline.abstained >= Number(values['refit-margin']) * baseline.negatives;
console.log(`\nB' ${takeB ? 'taken' : 'not taken: the incumbent stays'}`);
console.log("per set, incumbent then B':");
perSet('incumbent', incumbentScores, incumbentThreshold, incumbentCut);
if (b) perSet("B'", oof, b.threshold, b.cut);
if (takeB && values.write) {
  // Writing a cut of the kind's own needs the ranker to read one first (docs/retrieval.md, round 5).
  if (b!.cut.relative !== incumbentCut.relative || b!.cut.floor !== incumbentCut.floor)
    throw new Error(`the chosen shown cut ${JSON.stringify(b!.cut)} is not the engine's; the ranker reads one cut for every kind`);
  const file = JSON.parse(readFileSync(FILE, 'utf8')) as { version: number; kinds: Record<CatalogKind, RelevanceModels> };
  const tools = file.kinds.tools;
  file.kinds.skills = {
    version: tools.version,
    provenance: {
      script: 'scripts/fit-relevance-kind.ts',
      command: `npx tsx scripts/fit-relevance-kind.ts --write --sample ${values.sample} --allowance ${values.allowance} --strict-allowance ${values['strict-allowance']} --refit-margin ${values['refit-margin']}`,
      splitSeed: SPLIT_SEED,
      seeds: 'none: leave-one-set-out folds, Newton from zero weights',
      hybrid: 'models refitted here on the data below; shown cut chosen with the threshold',
      data: `library train + dev and every split of ${SETS.join(', ')} (../shared/eval library catalogue; fixtures/eval) and the small-catalogue requests of scripts/small-catalogues.ts, cached candidates replayed with the bundled per-kind re-rankers (rerank-model.json skills entry of ${String(BUNDLED_RERANKERS.skills.provenance['date'] ?? 'unknown date')}), everyday gate and shown cut`,
      choice: `balanced and shownCut = the point showing nothing for the most pooled no-skill messages (out of fold) with pooled shown hit@5 and hit@1 within ${allowance} of the incumbent's (t ${incumbentThreshold}, cut ${JSON.stringify(incumbentCut)}), no small-catalogue request lost; strict the same within ${strictAllowance}, not looser than today's ${incumbent.thresholds.hybrid.strict}`,
      dense: "today's model and thresholds (kinds.tools)",
      lexical: "today's model and thresholds (kinds.tools)",
      embedder: values.model,
      depth: REPLAY_DEPTH,
      l2: L2,
      date: new Date().toISOString().slice(0, 10),
    },
    models: { ...tools.models, hybrid: full },
    thresholds: { ...tools.thresholds, hybrid: { strict: bStrict!.threshold, balanced: b!.threshold } },
  };
  writeFileSync(FILE, `${JSON.stringify(file, null, 1)}\n`);
  console.error(`wrote kinds.skills of ${FILE}`);
}
