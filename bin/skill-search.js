#!/usr/bin/env node
// CommonJS (bin/package.json): a cold start loads the CLI as one file, dist/cli/bundle.cjs
// (scripts/bundle-cli.ts), sooner than tsc's ES modules one by one; a hook loads its own,
// dist/cli/hook-bundle.cjs, and the MCP server its own, dist/cli/mcp-bundle.cjs, when there is
// one. A bundle older than those modules (a build that ran tsc alone) is passed over for them,
// but in an installed package (below).
//
// The bundle is compiled here rather than by `require`, so that V8's code cache for it can be
// kept: a hook without a server starts Node on every prompt, and compiling the bundle's
// functions anew each time cost about 30 ms of it (docs/cold-start.md). The cache is a file
// under the cache root, `code-cache/cli-<hash of the bundle's path>.v8`, and the hook's and the
// MCP server's own, `cli-<hash>-hook.v8` and `cli-<hash>-mcp.v8`: V8 keeps the functions a run
// compiled, and a cache written by another command (`index`, usually the first) lacks most of
// theirs and holds code they never run.
// Each starts with a header line naming the bundle's size and time and the Node version, then
// V8's data. Any other header, or data V8 rejects, and the bundle is compiled from source; the
// cache is then written anew after the command. Reading or writing it never fails a command.
const { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const os = require('node:os');
const path = require('node:path');
const vm = require('node:vm');

const MODULES = path.join(__dirname, '..', 'dist', 'cli', 'main.js');
// A hook runs the hook's own bundle (its modules without the other commands': less to read and
// deserialise on every prompt), the MCP server its own (with the MCP SDK and zod inside, which it
// would otherwise require file by file before it can answer a host), or the CLI's where there is none.
const OWN_BUNDLES = { hook: 'hook-bundle.cjs', mcp: 'mcp-bundle.cjs' };
const OWN_COMMAND = Object.hasOwn(OWN_BUNDLES, process.argv[2]) ? process.argv[2] : undefined;
const BUNDLES = [...(OWN_COMMAND === undefined ? [] : [OWN_BUNDLES[OWN_COMMAND]]), 'bundle.cjs'].map((name) => path.join(__dirname, '..', 'dist', 'cli', name));

// Installed by a package manager, the files' times are the order it unpacked them in (npm writes
// the modules after the bundles): there every bundle is the one published with the modules.
const INSTALLED = __dirname.split(path.sep).includes('node_modules');

/** The first bundle at least as new as the modules (any, in an installed package), with its stat; else undefined. */
function currentBundle() {
  let modules;
  try {
    modules = statSync(MODULES).mtimeMs;
  } catch {
    return undefined;
  }
  for (const file of BUNDLES) {
    try {
      const stat = statSync(file);
      if (INSTALLED || stat.mtimeMs >= modules) return { file, stat };
    } catch {
      // Not built: the next.
    }
  }
  return undefined;
}

/** src/model-store/paths.ts `cacheRoot`, which this file cannot import (test/cli/bin.test.ts holds them equal). */
function cacheRoot(env) {
  if (env.SKILL_SEARCH_CACHE_DIR) return path.resolve(env.SKILL_SEARCH_CACHE_DIR);
  if (env.XDG_CACHE_HOME) return path.join(path.resolve(env.XDG_CACHE_HOME), 'skill-search');
  return path.join(env.HOME || env.USERPROFILE || os.homedir(), '.cache', 'skill-search');
}

/** FNV-1a of `text`, as 8 hex digits: one cache file per installed bundle. */
function hashOf(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/** The bundle, compiled with its code cache when one fits; `save()` writes the cache when it did not. */
function compileBundle({ file: bundle, stat }) {
  const command = OWN_COMMAND === undefined ? '' : `-${OWN_COMMAND}`;
  const file = path.join(cacheRoot(process.env), 'code-cache', `cli-${hashOf(bundle)}${command}.v8`);
  const header = Buffer.from(`${JSON.stringify({ size: stat.size, mtimeMs: stat.mtimeMs, node: process.version, arch: process.arch })}\n`);
  let cachedData;
  try {
    const kept = readFileSync(file);
    if (kept.subarray(0, header.length).equals(header)) cachedData = kept.subarray(header.length);
  } catch {
    // No cache yet.
  }
  const source = readFileSync(bundle, 'utf8');
  // The parameters of CommonJS's own wrapper, and this file's `import()` for the bundle's
  // (src/util/import-module.ts): code compiled by `vm` has none of its own.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname, skillSearchImport) {${source}\n})`, {
    filename: bundle,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  const save = () => {
    if (cachedData !== undefined && !script.cachedDataRejected) return;
    const temp = `${file}.${process.pid}.tmp`;
    try {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      writeFileSync(temp, Buffer.concat([header, script.createCachedData()]), { mode: 0o600 });
      chmodSync(temp, 0o600);
      renameSync(temp, file);
    } catch {
      // A cache that cannot be written costs the next start its shortcut only; a part written
      // (a full disk) is not left to fill it further on every prompt.
      try {
        rmSync(temp, { force: true });
      } catch {
        // Left for the next write of the same process id to replace.
      }
    }
  };
  return { script, save };
}

/** The bundle's exports, and what to do once the command is done. */
function loadBundle(current) {
  const { script, save } = compileBundle(current);
  const module = { exports: {} };
  const { file } = current;
  script.runInThisContext()(module.exports, createRequire(file), module, file, path.dirname(file), (specifier) => import(specifier));
  return { main: module.exports.main, done: save };
}

/**
 * Ends the process with `code` once stdout and stderr have taken everything written to them.
 * For the hook: its answer is out, and what is left of it (the ONNX session, SQLite, V8's heap)
 * Node would otherwise tear down one by one before the host sees the process end, 10-15 ms of a
 * prompt (docs/cold-start.md). Nothing the hook leaves behind needs that: its files are written
 * and closed, and what it starts in the background runs detached.
 */
function exitOnceFlushed(code) {
  let pending = 2;
  const flushed = () => {
    pending -= 1;
    if (pending === 0) process.exit(code);
  };
  process.stdout.write('', flushed);
  process.stderr.write('', flushed);
}

const bundle = currentBundle();
const loading =
  bundle === undefined ? import('../dist/cli/main.js').then(({ main }) => ({ main, done: () => {} })) : new Promise((resolve) => resolve(loadBundle(bundle)));

loading
  .then(({ main, done }) =>
    Promise.resolve(main(process.argv.slice(2))).then((code) => {
      process.exitCode = code;
      done();
      if (process.argv[2] === 'hook') exitOnceFlushed(code);
    }),
  )
  .then(undefined, (error) => {
    process.stderr.write(`skill-search: internal error: ${error?.stack ?? error}\n`);
    process.exitCode = 2;
  });
