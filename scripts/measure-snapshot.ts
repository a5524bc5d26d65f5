/**
 * Does a Node startup snapshot (`node --snapshot-blob … --build-snapshot`) holding the CLI's
 * bundle already evaluated make the hook without a server faster? A throwaway experiment for
 * docs/cold-start.md ("An eighth round"): it builds, under a temporary folder, a snapshot entry
 * that evaluates dist/cli/bundle.cjs (every package require deferred to after deserialisation,
 * through `module.createRequire`) and runs `main` from `setDeserializeMainFunction`, plus a
 * trivial blob whose main does nothing. One blob per way of compiling the bundle (`Mode`, at
 * `hookEntry`). Rounds then alternate, call by call: `node -e 0`, the trivial blob, the hook
 * through bin/skill-search.js (with its V8 code cache), the hook through each blob, over one
 * catalog saved by `index` (as scripts/measure-cold-hook.ts does). Prints the medians, the
 * per-round differences against the bin, and whether every blob's stdout and stderr equalled
 * the bin's.
 *
 * Usage: SKILL_SEARCH_EVAL_DIR=… npx tsx scripts/measure-snapshot.ts --cache DIR [--size 4000] [--rounds 15]
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { binEnv, hookInput, PROMPTS } from '../bench/cold-paths.js';
import { CLI_BUNDLE } from './bundle-cli.js';
import { ensureBuilt, ROOT } from './ensure-built.js';
import { writePoolTools } from './eval-suites.js';
import { timedNode, type TimedRun } from './timed-node.js';

const { values } = parseArgs({
  options: {
    cache: { type: 'string' },
    size: { type: 'string', default: '4000' },
    rounds: { type: 'string', default: '15' },
  },
});
if (values.cache === undefined) throw new Error('--cache DIR is required (a cache root whose store the runs share)');
const cache = path.resolve(values.cache);
const size = Number(values.size);
ensureBuilt();

const dir = mkdtempSync(path.join(os.tmpdir(), 'skill-search-snapshot-'));
const bundle = path.join(ROOT, CLI_BUNDLE);

type Mode = 'lazy' | 'eager' | 'cached' | 'warm';

/**
 * The snapshot entry: the bundle read and evaluated at build time (compiled by `vm`, as the bin
 * does, so its source is in the heap once), `main` run after deserialisation. How its functions
 * are compiled: `lazy`, as V8 does by default (only the eager modules' code); `eager`, under
 * `--no-lazy` (set back before the snapshot is written, so the blob loads under Node's default
 * flags): bytecode for every function; `cached`, with the bin's hook code cache as `cachedData`:
 * bytecode for the functions a hook ran; `warm`, the bundle with a function appended that runs
 * the module initialisers a hook runs (`warmSource`), compiled with a code cache of its own
 * (`warmCodeCache`), and that function called at build time, packages of plain JavaScript
 * (zod …) then required for real.
 */
function hookEntry(mode: Mode, codeCache: string): string {
  return `
const { builtinModules, createRequire } = require('node:module');
const fs = require('node:fs');
const v8 = require('node:v8');
const vm = require('node:vm');
const BUNDLE = ${JSON.stringify(bundle)};
const builtinRequire = require;
let packageRequire;
const NATIVE = ['onnxruntime-node', 'usearch', 'better-sqlite3', 'bindings'];
function bundleRequire(id) {
  if (packageRequire !== undefined) return packageRequire(id);
  if (id.startsWith('node:') || builtinModules.includes(id)) return builtinRequire(id);
  if (${JSON.stringify(mode)} === 'warm' && !NATIVE.some((name) => id === name || id.startsWith(name + '/'))) return createRequire(BUNDLE)(id);
  throw new Error('snapshot build: cannot require ' + id);
}
function compileBundle() {
  const file = ${JSON.stringify(mode)} === 'warm' ? ${JSON.stringify(path.join(dir, 'warm.cjs'))} : BUNDLE;
  const source = '(function (exports, require, module, __filename, __dirname, skillSearchImport) {' + fs.readFileSync(file, 'utf8') + '\\n})';
  if (${JSON.stringify(mode)} === 'eager') {
    v8.setFlagsFromString('--no-lazy');
    try { return vm.runInThisContext(source, { filename: BUNDLE }); } finally { v8.setFlagsFromString('--lazy'); }
  }
  if (${JSON.stringify(mode)} === 'cached' || ${JSON.stringify(mode)} === 'warm') {
    const kept = fs.readFileSync(${JSON.stringify(codeCache)});
    const script = new vm.Script(source, { filename: BUNDLE, cachedData: kept.subarray(kept.indexOf(10) + 1) });
    if (script.cachedDataRejected) throw new Error('code cache rejected at build');
    return script.runInThisContext();
  }
  return vm.runInThisContext(source, { filename: BUNDLE });
}
const bundleModule = { exports: {} };
compileBundle()(bundleModule.exports, bundleRequire, bundleModule, BUNDLE, ${JSON.stringify(path.dirname(bundle))}, (specifier) => import(specifier));
if (${JSON.stringify(mode)} === 'warm') globalThis.skillSearchWarm();
function exitOnceFlushed(code) {
  let pending = 2;
  const flushed = () => { pending -= 1; if (pending === 0) process.exit(code); };
  process.stdout.write('', flushed);
  process.stderr.write('', flushed);
}
require('node:v8').startupSnapshot.setDeserializeMainFunction(() => {
  packageRequire = createRequire(BUNDLE);
  const args = process.argv.slice(1);
  Promise.resolve(bundleModule.exports.main(args)).then((code) => {
    process.exitCode = code;
    if (args[0] === 'hook') exitOnceFlushed(code);
  }).then(undefined, (error) => {
    process.stderr.write('skill-search: internal error: ' + ((error && error.stack) || error) + '\\n');
    process.exitCode = 2;
  });
});
`;
}

function buildBlob(name: string, entry: string): string {
  const file = path.join(dir, `${name}.js`);
  writeFileSync(file, entry);
  const blob = path.join(dir, `${name}.blob`);
  const started = performance.now();
  const run = spawnSync(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', file], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`snapshot build ${name} failed: ${run.stderr}`);
  console.log(`built ${name}.blob in ${(performance.now() - started).toFixed(0)} ms, ${statSync(blob).size} bytes`);
  return blob;
}
const trivialBlob = buildBlob('trivial', "require('node:v8').startupSnapshot.setDeserializeMainFunction(() => {});\n");

const tools = path.join(dir, `tools-${size}.jsonl`);
writePoolTools(tools, size);
const cwd = path.join(dir, 'project');
mkdirSync(cwd);
const home = path.join(dir, 'home');
mkdirSync(home);
const env = binEnv(cache, home);
const sources = ['--tools', tools, '--index-dir', path.join(dir, 'index')];

/** `node args…` timed, in this run's environment. */
const timed = (args: readonly string[], input?: string): TimedRun => timedNode(args, env, input);

const bin = path.join(ROOT, 'bin', 'skill-search.js');
console.log(`indexing ${size} pool lines into ${cache}`);
const indexed = timed([bin, 'index', '--quiet', ...sources]);
if (!/indexed/.test(indexed.stdout + indexed.stderr)) throw new Error(`index failed: ${indexed.stderr}`);

// The bin's hook first, so that its code cache is there for the `cached` blob.
const warmInput = () => hookInput('x', cwd);
timed([bin, 'hook', 'claude-code', ...sources], warmInput());
const MODES: readonly Mode[] = ['lazy', 'eager', 'cached', 'warm'];
const codeCache = path.join(cache, 'code-cache', readdirSync(path.join(cache, 'code-cache')).find((name) => name.endsWith('-hook.v8'))!);

/**
 * A runner of the bundle's source at `file` as the bin runs it, for one hook: `trace` records
 * the module initialisers it runs (esbuild's `__esm` keys) into `out`; otherwise it writes the
 * V8 code cache of the run, after the hook, into `out` (as the bin does, without a header).
 */
function runner(file: string, out: string, trace: boolean): string {
  return `
const fs = require('node:fs'), vm = require('node:vm'), { createRequire } = require('node:module');
const BUNDLE = ${JSON.stringify(bundle)};
let source = fs.readFileSync(${JSON.stringify(file)}, 'utf8');
const inits = [];
globalThis.skillSearchTrace = (key) => inits.push(key);
if (${trace}) source = source.replace('return fn && (res = (0, fn[__getOwnPropNames(fn)[0]])(fn = 0)), res;', 'if (fn) skillSearchTrace(__getOwnPropNames(fn)[0]); return fn && (res = (0, fn[__getOwnPropNames(fn)[0]])(fn = 0)), res;');
const script = new vm.Script('(function (exports, require, module, __filename, __dirname, skillSearchImport) {' + source + '\\n})', { filename: BUNDLE });
const m = { exports: {} };
script.runInThisContext()(m.exports, createRequire(BUNDLE), m, BUNDLE, ${JSON.stringify(path.dirname(bundle))}, (s) => import(s));
const eager = inits.length;
m.exports.main(process.argv.slice(2)).then(() => {
  fs.writeFileSync(${JSON.stringify(out)}, ${trace} ? JSON.stringify(inits.slice(eager)) : script.createCachedData());
  process.exit(0);
});
`;
}
function runHook(entry: string): void {
  const file = path.join(dir, 'runner.cjs');
  writeFileSync(file, entry);
  const run = spawnSync(process.execPath, [file, 'hook', 'claude-code', ...sources], { env, input: warmInput(), encoding: 'utf8' });
  if (run.status !== 0 || !run.stdout.includes('additionalContext')) throw new Error(`runner failed: ${run.stdout} ${run.stderr}`);
}
runHook(runner(bundle, path.join(dir, 'inits.json'), true));
const keys = JSON.parse(readFileSync(path.join(dir, 'inits.json'), 'utf8')) as string[];
const initOf = new Map([...readFileSync(bundle, 'utf8').matchAll(/var (init_[\w$]+) = __esm\(\{\n {2}"([^"]+)"/g)].map((m) => [m[2]!, m[1]!]));
const warmSource = path.join(dir, 'warm.cjs');
writeFileSync(warmSource, `${readFileSync(bundle, 'utf8')}\nglobalThis.skillSearchWarm = () => { ${keys.map((key) => `${initOf.get(key)}();`).join(' ')} };\n`);
console.log(`warm: ${keys.length} module initialisers`);
const warmCodeCache = path.join(dir, 'warm.v8');
runHook(runner(warmSource, path.join(dir, 'warm.v8.raw'), false));
writeFileSync(warmCodeCache, Buffer.concat([Buffer.from('\n'), readFileSync(path.join(dir, 'warm.v8.raw'))]));
const blobs = Object.fromEntries(MODES.map((mode) => [mode, buildBlob(mode, hookEntry(mode, mode === 'warm' ? warmCodeCache : codeCache))])) as Record<
  Mode,
  string
>;
const variants: Record<string, (input: string) => TimedRun> = {
  'node -e 0': () => timed(['-e', '0']),
  'trivial blob': () => timed(['--snapshot-blob', trivialBlob]),
  'bin hook': (input) => timed([bin, 'hook', 'claude-code', ...sources], input),
  ...Object.fromEntries(
    MODES.map((mode) => [`${mode} blob hook`, (input: string) => timed(['--snapshot-blob', blobs[mode], 'hook', 'claude-code', ...sources], input)]),
  ),
};
const names = Object.keys(variants);
const samples = new Map<string, TimedRun[]>(names.map((name) => [name, []]));
const differing: string[] = [];
// One unmeasured call of each hook first (the page cache, the session folders).
for (const name of names.filter((name) => name.endsWith('hook'))) variants[name]!(warmInput());
for (let round = 0; round < Number(values.rounds); round += 1) {
  const outputs = new Map<string, string>();
  for (const name of round % 2 === 0 ? names : [...names].reverse()) {
    const input = hookInput(PROMPTS[round % PROMPTS.length]!, cwd);
    const sample = variants[name]!(input);
    samples.get(name)!.push(sample);
    outputs.set(name, `${sample.stdout}\n--\n${sample.stderr}`);
  }
  for (const blob of MODES.map((mode) => `${mode} blob hook`))
    if (outputs.get('bin hook') !== outputs.get(blob)) differing.push(`round ${round}, ${blob}: ${outputs.get(blob)} ≠ ${outputs.get('bin hook')}`);
}

const median = (list: readonly number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
const floor = median(samples.get('node -e 0')!.map((s) => s.ms));
const floorCpu = median(samples.get('node -e 0')!.map((s) => s.cpuMs));
console.log(
  `${size} lines, ${values.rounds} rounds, load ${os
    .loadavg()
    .map((n) => n.toFixed(1))
    .join(' ')}`,
);
for (const name of names) {
  const list = samples.get(name)!;
  const ms = median(list.map((s) => s.ms));
  const cpu = median(list.map((s) => s.cpuMs));
  console.log(
    `${name}: ${ms.toFixed(0)} ms (${(ms / floor).toFixed(2)}x), CPU ${cpu.toFixed(0)} ms (${(cpu / floorCpu).toFixed(2)}x); wall ${list.map((s) => s.ms.toFixed(0)).join(' ')}`,
  );
}
for (const blob of MODES.map((mode) => `${mode} blob hook`)) {
  const pairs = samples.get('bin hook')!.map((s, i) => s.ms - samples.get(blob)![i]!.ms);
  console.log(`bin hook − ${blob}, per round: median ${median(pairs).toFixed(1)} ms; ${pairs.map((d) => d.toFixed(0)).join(' ')}`);
}
const suggested = samples.get('bin hook')!.filter((s) => s.stdout.includes('additionalContext')).length;
console.log(`bin hook suggested in ${suggested} of ${values.rounds} rounds`);
console.log(differing.length === 0 ? 'outputs identical in every round' : `outputs differ:\n${differing.join('\n')}`);
