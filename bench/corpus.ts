/**
 * The data the benchmarks run on: the real sets in `../shared/eval` when present, the
 * deterministic synthetic fixtures otherwise. Every set says where it came from, so the
 * report can never pass synthetic numbers off as real ones.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Skill } from '../src/types.js';
import { generateSynthetic, prng } from './synthetic.js';
import { buildSkill, indexedText } from '../src/load/skill.js';

import type { LabelledQuery, ToolRecord } from './records.js';

export type { LabelledQuery, ToolRecord };

export interface EvalSet {
  readonly name: string;
  /** `real` sets come from `../shared/eval`; `synthetic` ones from the generator. */
  readonly origin: 'real' | 'synthetic';
  readonly skills: readonly Skill[];
  readonly queries: readonly LabelledQuery[];
  /** Queries in the source file before sampling. */
  readonly totalQueries: number;
}

export interface Pool {
  readonly origin: 'real' | 'synthetic';
  readonly skills: readonly Skill[];
}

function readJsonl(file: string): unknown[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      try {
        return JSON.parse(line) as unknown;
      } catch (error) {
        throw new Error(`${file}:${index + 1}: not JSON (${(error as Error).message})`);
      }
    });
}

const text = (value: unknown): string => (typeof value === 'string' ? value : value == null ? '' : String(value));

export function toToolRecord(raw: unknown): ToolRecord {
  const row = (raw ?? {}) as Record<string, unknown>;
  const name = text(row.name ?? row.id);
  const whenToUse = text(row.whenToUse ?? row.when_to_use);
  return { id: text(row.id ?? name), name, description: text(row.description), ...(whenToUse ? { whenToUse } : {}) };
}

export function toLabelledQuery(raw: unknown): LabelledQuery {
  const row = (raw ?? {}) as Record<string, unknown>;
  const relevant = Array.isArray(row.relevant) ? row.relevant.map(text) : [];
  return { id: text(row.id), query: text(row.query), relevant };
}

export { indexedText };

/** A tools line as the loader builds it (same indexed text, token estimate and content hash). */
export function toSkill(record: ToolRecord, origin: string): Skill {
  return buildSkill(
    { name: record.name, description: record.description, whenToUse: record.whenToUse || undefined, body: '' },
    { source: 'skills', rank: 5, path: `tools:${origin}#${record.id}`, id: record.id },
  );
}

/** A deterministic sample of `n` items (all of them when there are fewer), in source order. */
export function sample<T>(items: readonly T[], n: number, seed = 11): T[] {
  if (items.length <= n) return [...items];
  const random = prng(seed);
  const chosen = new Set<number>();
  while (chosen.size < n) chosen.add(Math.floor(random() * items.length));
  return [...chosen].sort((a, b) => a - b).map((i) => items[i]!);
}

interface RealSetSpec {
  readonly name: string;
  readonly dir: string;
  readonly queryFiles: readonly string[];
  /** Share of the sample drawn from the second query file (negatives), when there is one. */
  readonly negativeShare?: number;
}

const REAL_SETS: readonly RealSetSpec[] = [
  { name: 'metatool', dir: 'metatool', queryFiles: ['queries.jsonl', 'queries_no_tool.jsonl'], negativeShare: 0.1 },
  { name: 'seal-tools', dir: 'seal-tools', queryFiles: ['queries.jsonl'] },
  { name: 'skillsbench', dir: 'skillsbench', queryFiles: ['queries.jsonl'] },
];

export const POOL_FILE = path.join('pools', 'skill-registry-metadata', 'tools.jsonl');

export function hasEvalDir(evalDir: string | null): evalDir is string {
  return evalDir !== null && existsSync(path.join(evalDir, 'metatool', 'tools.jsonl'));
}

/**
 * The labelled sets for the hit-rate runs, each sampled to at most `maxQueries` queries.
 * Without `../shared/eval`, one synthetic set of 2,000 skills stands in.
 */
export function loadEvalSets(evalDir: string | null, maxQueries: number): EvalSet[] {
  if (!hasEvalDir(evalDir)) {
    const synthetic = generateSynthetic({ skills: 2000, queries: maxQueries, seed: 7 });
    return [
      {
        name: 'synthetic-2k',
        origin: 'synthetic',
        skills: synthetic.tools.map((tool) => toSkill(tool, 'synthetic')),
        queries: synthetic.queries,
        totalQueries: synthetic.queries.length,
      },
    ];
  }
  const sets: EvalSet[] = [];
  for (const spec of REAL_SETS) {
    const dir = path.join(evalDir, spec.dir);
    if (!existsSync(path.join(dir, 'tools.jsonl'))) continue;
    const skills = readJsonl(path.join(dir, 'tools.jsonl')).map((row) => toSkill(toToolRecord(row), spec.name));
    const files = spec.queryFiles.filter((file) => existsSync(path.join(dir, file)));
    const pools = files.map((file) => readJsonl(path.join(dir, file)).map(toLabelledQuery));
    const negatives = pools.length > 1 ? Math.round(maxQueries * (spec.negativeShare ?? 0)) : 0;
    const queries = [...sample(pools[0] ?? [], maxQueries - negatives), ...(pools[1] ? sample(pools[1], negatives) : [])];
    sets.push({
      name: spec.name,
      origin: 'real',
      skills,
      queries,
      totalQueries: pools.reduce((sum, pool) => sum + pool.length, 0),
    });
  }
  return sets;
}

/**
 * Skills for the scaling runs: the ~24k real registry entries when present (the first
 * `size` lines), else synthetic skills. Sizes above the pool are capped to the pool.
 */
export function loadPool(evalDir: string | null, size: number): Pool {
  const file = evalDir === null ? null : path.join(evalDir, POOL_FILE);
  if (file !== null && existsSync(file)) {
    const rows = readJsonl(file).slice(0, size);
    return { origin: 'real', skills: rows.map((row) => toSkill(toToolRecord(row), 'skill-registry-metadata')) };
  }
  const synthetic = generateSynthetic({ skills: size, queries: 0, seed: 7 });
  return { origin: 'synthetic', skills: synthetic.tools.map((tool) => toSkill(tool, 'synthetic')) };
}

/** Queries to time at scale: labelled ones when there are any, else generated ones. */
export function scalingQueries(evalDir: string | null, n: number): string[] {
  const sets = loadEvalSets(evalDir, n);
  const texts = sets.flatMap((set) => set.queries.map((q) => q.query));
  return sample(texts, n, 5);
}
