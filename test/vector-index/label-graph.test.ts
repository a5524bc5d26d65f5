import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CatalogVectors } from '../../src/vector-index/catalog-vectors.js';
import { LabelGraph, STALE_SHARE } from '../../src/vector-index/label-graph.js';
import { useTempDirs } from '../support/temp-dirs.js';
import { randomVectors } from './helpers.js';

const temp = useTempDirs('label-graph');
const DIMENSIONS = 16;
const vectors = randomVectors(6000, DIMENSIONS, 11);

/** Views `file` with usearch in a fresh process and searches it: an abort there (exit 134) is what a hook would meet. */
function viewInFreshProcess(file: string): { status: number | null; stderr: string; labels: number[] } {
  const usearch = pathToFileURL(path.resolve('node_modules/usearch/javascript/dist/esm/usearch.js')).href;
  const script = `
    const { Index, MetricKind, ScalarKind } = await import(${JSON.stringify(usearch)});
    const index = new Index({ dimensions: ${DIMENSIONS}, metric: MetricKind.IP, quantization: ScalarKind.F32, connectivity: 16, expansion_add: 128, expansion_search: 64, multi: false });
    index.view(${JSON.stringify(file)});
    const query = Float32Array.from(${JSON.stringify(Array.from(vectors[5999]!))});
    console.log(JSON.stringify(Array.from(index.search(query, 5, 1).keys, Number)));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr, labels: run.status === 0 ? (JSON.parse(run.stdout) as number[]) : [] };
}

function graphOf(count: number): LabelGraph {
  const graph = LabelGraph.create(DIMENSIONS);
  for (let label = 0; label < count; label += 1) graph.add(label, vectors[label]!);
  return graph;
}

describe('LabelGraph saved after changes', () => {
  it('a graph derived by dropping half its labels reads back in a fresh process (usearch misreads saved vacant slots)', () => {
    const dir = temp();
    const base = path.join(dir, 'base.usearch');
    graphOf(6000).save(base);
    const derived = LabelGraph.load(base, DIMENSIONS);
    const dropped = Array.from({ length: 3000 }, (_, label) => label);
    const left = derived.update(dropped, []);
    expect(left).toBe(3000);
    expect(derived.tooStale(3000)).toBe(true);
    const file = path.join(dir, 'derived.usearch');
    derived.save(file);
    const read = viewInFreshProcess(file);
    expect(read.stderr).toBe('');
    expect(read.status).toBe(0);
    expect(read.labels[0]).toBe(5999);
  });

  it('an edit takes the slot of the label it replaces, so nothing goes stale and the file reads back', () => {
    const dir = temp();
    const base = path.join(dir, 'base.usearch');
    graphOf(5000).save(base);
    const derived = LabelGraph.load(base, DIMENSIONS);
    const edits = Array.from({ length: 1000 }, (_, i) => [5000 + i, vectors[5000 + i]!] as const);
    const replaced = Array.from({ length: 1000 }, (_, label) => label);
    expect(derived.update(replaced, edits)).toBe(0);
    expect(derived.size).toBe(5000);
    expect(derived.tooStale(5000)).toBe(false);
    const file = path.join(dir, 'edited.usearch');
    derived.save(file);
    const read = viewInFreshProcess(file);
    expect(read.status).toBe(0);
    expect(read.labels[0]).toBe(5999);
    expect(read.labels.every((label) => label >= 1000)).toBe(true);
  });

  it('tooStale holds a graph to its share of labels beyond the catalog', () => {
    const graph = graphOf(100);
    expect(graph.tooStale(100 - 100 * STALE_SHARE)).toBe(false);
    expect(graph.tooStale(100 - 100 * STALE_SHARE - 1)).toBe(true);
  });
});

describe('CatalogVectors with stale graph labels', () => {
  it('a removed member is never answered, k is still filled, and a graph gone too stale is built anew and saves', () => {
    const index = new CatalogVectors({ kind: 'hnsw', dimensions: DIMENSIONS, exactBelow: 0 });
    for (let i = 0; i < 400; i += 1) index.set(`s${i}`, `k${i}`, vectors[i]!, i);
    expect(index.search(vectors[0]!, 5).map((m) => m.id)[0]).toBe('s0');
    for (let i = 0; i < 30; i += 1) index.remove(`s${i}`);
    const matches = index.search(vectors[0]!, 10);
    expect(matches).toHaveLength(10);
    expect(matches.some((m) => Number(m.id.slice(1)) < 30)).toBe(false);
    for (let i = 30; i < 200; i += 1) index.remove(`s${i}`);
    const graph = index.graph()!;
    expect(graph.size).toBe(200);
    expect(index.search(vectors[300]!, 1).map((m) => m.id)).toEqual(['s300']);
    const file = path.join(temp(), 'live.usearch');
    graph.save(file);
    expect(viewInFreshProcess(file).status).toBe(0);
  });
});
