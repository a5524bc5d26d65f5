/**
 * One cold-start sample for the runtime suite, run in a fresh process so neither side gets a
 * warm JIT or a loaded module from the other: the time from "model wanted" to the first
 * embedding on onnxruntime, with the ONNX graph from the disk cache or rebuilt.
 *
 *   node --import tsx bench/use-lite-cold-start.ts <graph cache dir | none>
 *
 * Prints `{"ms":…,"source":"cache"|"built"|"uncached"}`. Module import time is excluded (the
 * same on both sides).
 */
import { loadUseLiteGraph } from '../src/embed/use-lite-graph-cache.js';
import { createNativeUseLiteRuntime } from '../src/embed/use-lite.js';

const [arg] = process.argv.slice(2);
if (arg === undefined) throw new Error('usage: use-lite-cold-start.ts <graph cache dir | none>');
const cacheDir = arg === 'none' ? null : arg;
const started = performance.now();
const runtime = await createNativeUseLiteRuntime({ cacheDir });
await runtime.embed(['extract the tables from this pdf']);
const ms = performance.now() - started;
// Read after the timing: which path the load took (a cache miss would make the sample meaningless).
const { source } = cacheDir === null ? { source: 'uncached' } : await loadUseLiteGraph({ cacheDir });
process.stdout.write(`${JSON.stringify({ ms, source })}\n`);
