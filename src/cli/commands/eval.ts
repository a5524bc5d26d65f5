import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { type ParsedArgs, flagError } from '../args.js';
import { DEFAULT_EVAL_K } from '../flags.js';
import { line, openLiveIndex, printJson, requireSkills } from '../context.js';
import { table } from '../format.js';
import { plural } from '../../util/text.js';
import type { CliIo } from '../io.js';
import { requirePath, resolveIndexDir, resolveRetrieval, resolveSources, type RetrievalOptions, type SourceOptions } from '../sources.js';
import { ENGINE_DEFAULTS, type EngineKnobs } from '../../search/options.js';
import { sha256Hex } from '../../util/hash.js';
import { definedOnly } from '../../util/defined.js';

export async function runEval(args: ParsedArgs, io: CliIo): Promise<number> {
  const queriesRaw = args.values.queries;
  if (typeof queriesRaw !== 'string') throw flagError("'eval' needs --queries FILE (see skill-search eval --help)");
  const queriesFile = requirePath('queries', queriesRaw, 'file', io.cwd);
  const perQueryRaw = args.values['per-query'];
  if (perQueryRaw !== undefined && (typeof perQueryRaw !== 'string' || perQueryRaw === '')) throw flagError('--per-query expects a file path');
  const sources = resolveSources(args.values, io);
  const configRaw = args.values.config;
  if (configRaw !== undefined && (typeof configRaw !== 'string' || configRaw === '')) throw flagError('--config expects a file path');
  const { readEngineConfig, describeOverrides } = await import('../../eval/engine-config.js');
  const fromFile = configRaw === undefined ? undefined : readEngineConfig(requirePath('config', configRaw, 'file', io.cwd));
  // A flag wins over the file: what the report echoes is what the run used.
  const knobs =
    fromFile === undefined
      ? undefined
      : (Object.fromEntries(
          Object.entries(fromFile).filter(([key]) => !(['k', 'mode', 'abstain'].includes(key) && args.values[key] !== undefined)),
        ) as EngineKnobs);
  const retrieval = withKnobs(resolveRetrieval(args.values, io, DEFAULT_EVAL_K), knobs, sources, io);
  const [evaluation, { readEvalQueries }] = await Promise.all([import('../../eval/run.js'), import('../../eval/queries.js')]);
  const queries = await readEvalQueries(queriesFile);
  if (queries.length === 0) throw flagError(`--queries '${queriesRaw}': no queries in the file`);

  const live = await openLiveIndex(sources, retrieval, io, knobs);
  const perQuery = perQueryRaw === undefined ? undefined : createWriteStream(path.resolve(io.cwd, perQueryRaw));
  try {
    const signal = io.signal === undefined ? {} : { signal: io.signal };
    const { snapshot } = await live.refresh(signal);
    await requireSkills(sources, snapshot.skills.length, snapshot.diagnostics);
    // A label that names no skill (a typo, a skill not loaded) can only miss: say so, or the numbers mislead.
    const known = new Set(snapshot.skills.flatMap((skill) => [skill.name, skill.id]));
    const unknown = queries.flatMap((item) => item.relevant.filter((label) => !known.has(label)).map((label) => `${item.id}: ${JSON.stringify(label)}`));
    if (unknown.length > 0) {
      line(
        io.stderr,
        `skill-search: ${queriesRaw}: ${plural(unknown.length, 'relevant label')} matching no skill loaded (counted as misses), the first: ${unknown[0]}`,
      );
    }
    const report = await evaluation.runEval(live.engine, queries, {
      k: retrieval.k,
      mode: retrieval.mode,
      threshold: live.engine.threshold(retrieval.mode),
      explainBlank: evaluation.blankExplainer(live.engine, { mode: retrieval.mode, k: retrieval.k }),
      ...(perQuery === undefined ? {} : { onRecord: (record) => perQuery.write(`${JSON.stringify(record)}\n`) }),
      ...signal,
    });
    if (args.values.json === true) return printJson(io, knobs === undefined ? report : { ...report, overrides: knobs });
    const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
    const { shown } = report;
    const rows = [
      ['', 'ranked (abstention off)', 'shown (abstention on)'],
      ['hit@1', pct(report.hitAt1), pct(shown.hitAt1)],
      ['hit@5', pct(report.hitAt5), pct(shown.hitAt5)],
      ['hit@10', pct(report.hitAt10), ''],
      ['recall@5', pct(report.recallAt5), ''],
      ['recall@10', pct(report.recallAt10), ''],
      ['MRR', report.mrr.toFixed(3), ''],
      ['nDCG@10', report.ndcgAt10.toFixed(3), ''],
      ['blank', '', `${pct(shown.blank)} of ${shown.answerable} answerable`],
      ['abstain', '', `${report.abstain.correct}/${report.abstain.queries} correct`],
      // One row per query language when there is more than one (ranking view).
      ...(Object.keys(report.byLanguage).length > 1
        ? Object.entries(report.byLanguage).map(([language, scores]) => [
            `language ${language}`,
            `${scores.queries} queries: hit@1 ${pct(scores.hitAt1)}, hit@5 ${pct(scores.hitAt5)}, MRR ${scores.mrr.toFixed(3)}`,
            '',
          ])
        : []),
    ];
    line(io.stdout, `${report.queries} queries, mode ${report.mode}, k ${report.k}, abstention ${String(retrieval.abstain ?? ENGINE_DEFAULTS.abstain)}`);
    if (knobs !== undefined) line(io.stdout, `overrides from ${configRaw as string}: ${describeOverrides(knobs)}`);
    for (const text of table(rows)) line(io.stdout, text);
    line(io.stdout, `latency p50 ${report.latencyMs.p50} ms, p95 ${report.latencyMs.p95} ms, p99 ${report.latencyMs.p99} ms`);
    return 0;
  } finally {
    await live.close();
    if (perQuery !== undefined) await new Promise<void>((resolve) => perQuery.end(resolve));
  }
}

/** The run's retrieval with a config's `k`, `mode` and `abstain`; knobs that shape the built index get an index folder of their own. */
function withKnobs(retrieval: RetrievalOptions, knobs: EngineKnobs | undefined, sources: SourceOptions, io: CliIo): RetrievalOptions {
  if (knobs === undefined) return retrieval;
  const build = { ann: knobs.ann, m: knobs.hnsw?.m, efConstruction: knobs.hnsw?.efConstruction };
  const rebuilt = Object.values(build).some((value) => value !== undefined);
  return Object.freeze({
    ...retrieval,
    ...definedOnly({ k: knobs.k, mode: knobs.mode, abstain: knobs.abstain }),
    ...(rebuilt ? { indexDir: `${resolveIndexDir(sources, retrieval, io.env)}-${sha256Hex(JSON.stringify(build)).slice(0, 12)}` } : {}),
  });
}
