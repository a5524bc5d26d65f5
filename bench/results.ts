/**
 * The shape every suite reports. A measurement is always shown beside the baseline it was
 * measured against in the same run, so numbers from a loaded laptop and an idle server
 * still compare: the ratio is the result, the milliseconds are context.
 */
import type { Bench, Task } from 'tinybench';
import type { ShownScores } from '../src/eval/metrics.js';
import type { HitRate } from './metrics.js';
import { ratio } from './metrics.js';
import type { SuiteName } from './options.js';

export type Unit = 'ms' | 's' | 'per-s' | 'fraction' | 'count' | 'MB';

/** Which way is good, so the chart can colour a ratio. */
export type Better = 'lower' | 'higher';

export interface Measurement {
  /** Grouping within the suite: a catalog size (`n=10000`), an eval set (`metatool`). */
  readonly group: string;
  readonly name: string;
  /** What was measured: `p50`, `mean`, `hit@5`, `build`… */
  readonly metric: string;
  readonly value: number;
  readonly unit: Unit;
  readonly samples?: number;
  readonly baseline?: { readonly name: string; readonly value: number };
  /** `value / baseline.value`; null when there is no usable baseline. */
  readonly ratio?: number | null;
  readonly better?: Better;
  /** Shown in the ratio chart. */
  readonly headline?: boolean;
  /** The goal this figure is held to (`≤ 4×`) and whether this run met it. */
  readonly target?: { readonly text: string; readonly met: boolean };
}

export interface HitRateRow {
  readonly set: string;
  readonly origin: 'real' | 'synthetic';
  /** `hybrid`, `dense`, `lexical`, and the brute-force variants (`dense·exact`, `hybrid·exact`). */
  readonly mode: string;
  readonly skills: number;
  /** Ranking view: abstention off. */
  readonly metrics: HitRate;
  /** What a user is shown (abstention on) for the answerable queries; absent in results from before it was measured. */
  readonly shown?: ShownScores;
}

export interface ScalingPoint {
  readonly size: number;
  readonly series: string;
  readonly p50Ms: number;
}

interface SuiteBase {
  readonly suite: SuiteName;
  readonly durationMs: number;
}
export type SuiteResult =
  | (SuiteBase & {
      readonly state: 'completed';
      readonly measurements: readonly Measurement[];
      readonly hitRates?: readonly HitRateRow[];
      readonly scaling?: readonly ScalingPoint[];
      readonly notes: readonly string[];
    })
  | (SuiteBase & { readonly state: 'skipped'; readonly reason: string })
  | (SuiteBase & { readonly state: 'errored'; readonly error: string });

export interface RunReport {
  readonly startedAt: string;
  readonly durationMs: number;
  readonly argv: readonly string[];
  readonly environment: {
    readonly node: string;
    readonly platform: string;
    readonly cpus: number;
    readonly cpuModel: string;
    readonly loadAverage: readonly number[];
    readonly embedder: string;
    readonly data: 'real' | 'synthetic';
    /** Skill texts this run had to embed into the cache (0 on a warm cache), and how long that took. */
    readonly embeddedIntoCache: { readonly texts: number; readonly ms: number };
  };
  readonly suites: readonly SuiteResult[];
}

/** A measurement with its ratio against a baseline measured in the same run. */
export function compare(measurement: Omit<Measurement, 'baseline' | 'ratio'>, baseline: { name: string; value: number }): Measurement {
  return { ...measurement, baseline, ratio: ratio(measurement.value, baseline.value) };
}

export interface TaskStats {
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly samples: number;
}

/** Latency of a finished tinybench task; throws with the task's own error when it failed. */
export function taskStats(task: Task | undefined): TaskStats {
  if (task === undefined) throw new Error('tinybench task missing');
  const result = task.result;
  switch (result.state) {
    case 'completed':
    case 'aborted-with-statistics':
      return {
        meanMs: result.latency.mean,
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        samples: result.latency.samplesCount,
      };
    case 'errored':
      throw result.error;
    default:
      throw new Error(`tinybench task "${task.name}" ended ${result.state}`);
  }
}

/** Runs a bench and returns the stats of each task by name. */
export async function runBench(bench: Bench): Promise<Map<string, TaskStats>> {
  await bench.run();
  return new Map(bench.tasks.map((task) => [task.name, taskStats(task)]));
}
