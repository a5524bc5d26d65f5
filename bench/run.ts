/**
 * `npm run bench [-- --quick] [--only a,b] [--sizes 1000,10000,24000]`
 *
 * Runs the suites in order, each timed, each isolated: a suite that throws is reported as
 * failed and the others still run. Suites are imported lazily so that one whose library is
 * missing or broken cannot stop the rest.
 */
import os from 'node:os';
import path from 'node:path';
import { BenchContext, type Suite } from './context.js';
import { hasEvalDir } from './corpus.js';
import { parseArgs, resolveOptions, USAGE, type SuiteName } from './options.js';
import { formatDuration, renderText, writeReport } from './report.js';
import type { RunReport, SuiteResult } from './results.js';

const SUITES: Record<SuiteName, () => Promise<Suite>> = {
  embed: async () => (await import('./embed.js')).embedSuite,
  runtime: async () => (await import('./runtime.js')).runtimeSuite,
  crosslingual: async () => (await import('./crosslingual.js')).crosslingualSuite,
  ann: async () => (await import('./ann.js')).annSuite,
  'ann-choice': async () => (await import('./ann-choice.js')).annChoiceSuite,
  lexical: async () => (await import('./lexical.js')).lexicalSuite,
  query: async () => (await import('./query.js')).querySuite,
  prefetch: async () => (await import('./prefetch.js')).prefetchSuite,
  reindex: async () => (await import('./reindex.js')).reindexSuite,
  scaling: async () => (await import('./scaling.js')).scalingSuite,
  'hit-rate': async () => (await import('./hit-rate.js')).hitRateSuite,
  scale: async () => (await import('./scale.js')).scaleSuite,
  imports: async () => (await import('./imports.js')).importsSuite,
  'new-folder': async () => (await import('./new-folder.js')).newFolderSuite,
  'cold-hook': async () => (await import('./cold-hook.js')).coldHookSuite,
  'cold-build': async () => (await import('./cold-hook.js')).coldBuildSuite,
  'cold-change': async () => (await import('./cold-change.js')).coldChangeSuite,
  'cold-readers': async () => (await import('./cold-readers.js')).coldReadersSuite,
  'cold-watch': async () => (await import('./cold-watch.js')).coldWatchSuite,
};

async function runSuite(name: SuiteName, context: BenchContext): Promise<SuiteResult> {
  const started = performance.now();
  context.log(`▶ ${name}`);
  try {
    const suite = await SUITES[name]();
    const output = await suite(context);
    const durationMs = performance.now() - started;
    context.log(`✔ ${name} (${formatDuration(durationMs)})`);
    if ('skipped' in output) return { suite: name, state: 'skipped', durationMs, reason: output.skipped };
    return {
      suite: name,
      state: 'completed',
      durationMs,
      measurements: output.measurements,
      ...(output.hitRates ? { hitRates: output.hitRates } : {}),
      ...(output.scaling ? { scaling: output.scaling } : {}),
      notes: output.notes ?? [],
    };
  } catch (error) {
    const durationMs = performance.now() - started;
    const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    context.log(`✘ ${name} failed: ${error instanceof Error ? (error.stack ?? message) : message}`);
    return { suite: name, state: 'errored', durationMs, error: message };
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const parsed = parseArgs(argv);
  if (parsed === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const options = resolveOptions(parsed);
  const context = new BenchContext(options);
  const startedAt = new Date().toISOString();
  const started = performance.now();
  const data = hasEvalDir(options.evalDir) ? 'real' : 'synthetic';
  context.log(
    `data: ${data === 'real' ? options.evalDir : 'synthetic fixtures (no ../shared/eval)'}; embedder ${context.embedder.id} (cache ${context.embedder.cacheStatus}); sizes ${options.sizes.join(', ')}${options.quick ? '; quick' : ''}`,
  );
  const suites: SuiteResult[] = [];
  const cpus = os.cpus();
  const snapshot = (): RunReport => ({
    startedAt,
    durationMs: performance.now() - started,
    argv,
    environment: {
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      cpus: cpus.length,
      cpuModel: cpus[0]?.model.trim() ?? 'unknown',
      loadAverage: os.loadavg(),
      embedder: context.embedder.id,
      data,
      embeddedIntoCache: { ...context.priming },
    },
    suites: [...suites],
  });
  try {
    for (const name of options.only) {
      suites.push(await runSuite(name, context));
      // Written after every suite, so an interrupted run still leaves what it measured.
      writeReport(snapshot(), options.outDir);
    }
  } finally {
    await context.dispose();
  }
  const report = snapshot();
  process.stdout.write(`${renderText(report)}\n\n`);
  const files = writeReport(report, options.outDir);
  const rel = (file: string): string => path.relative(process.cwd(), file) || file;
  process.stdout.write(`wrote ${rel(files.json)}, ${rel(files.svg)}, ${rel(files.markdown)} in ${formatDuration(report.durationMs)}\n`);
  return suites.some((suite) => suite.state === 'errored') ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
