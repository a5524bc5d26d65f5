/**
 * The CLI as one CommonJS file, dist/cli/bundle.cjs, made from tsc's output in dist/ (so run it
 * after `tsc`; `npm run build` runs both). bin/skill-search.js loads it when it is current.
 *
 * Why: a hook without a server starts Node on every prompt, and Node loads the ~125 ES modules
 * of that path one by one (resolve, read, compile, link). One CommonJS file did the same work
 * about 60 ms sooner per call at 24k skills (docs/cold-start.md).
 * Packages stay in node_modules (but better-sqlite3's and onnxruntime's JavaScript, below), and modules the CLI imports on demand are still only
 * evaluated on demand. The file sits beside dist/cli/main.js, so paths our modules resolve
 * from `import.meta.url` (the package's root two folders up) stay the same.
 *
 * The bin compiles the bundle itself, to keep V8's code cache for it (bin/skill-search.js), and
 * code compiled that way cannot `import()`: every dynamic import of a package goes through
 * `importModule` (src/util/import-module.ts), which uses the bin's. A build with any other
 * `import(` left in the bundle fails here.
 *
 * Usage: npx tsx scripts/bundle-cli.ts
 */
import { type BuildOptions, buildSync } from 'esbuild';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const CLI_ENTRY = 'dist/cli/main.js';
export const CLI_BUNDLE = 'dist/cli/bundle.cjs';
/**
 * The hook's own bundle, which the bin runs for `skill-search hook`: the hook's modules without
 * the other commands' (about 25% less to read and to deserialise from the code cache, 2–3 ms of
 * CPU a prompt; docs/cold-start.md, tenth round).
 */
export const HOOK_ENTRY = 'dist/cli/hook-main.js';
export const HOOK_BUNDLE = 'dist/cli/hook-bundle.cjs';
/**
 * The MCP server's own bundle, which the bin runs for `skill-search mcp`: the CLI's modules with
 * the MCP SDK and zod (and what the SDK requires) inside, compiled under the code cache. Codex
 * leaves a server's tools out of a turn when it has not listed them soon after its start
 * (docs/hosts.md), and requiring those packages file by file was most of a server's start.
 */
export const MCP_BUNDLE = 'dist/cli/mcp-bundle.cjs';

/** Writes {@link CLI_BUNDLE} from {@link CLI_ENTRY} and {@link HOOK_BUNDLE} from {@link HOOK_ENTRY} under `root`; throws on an esbuild error. */
export function bundleCli(root: string = ROOT): void {
  bundleOne(root, CLI_ENTRY, CLI_BUNDLE);
  bundleOne(root, HOOK_ENTRY, HOOK_BUNDLE);
  bundleOne(root, CLI_ENTRY, MCP_BUNDLE, MCP_PACKAGES);
}

function bundleOne(root: string, entry: string, out: string, more: readonly string[] = []): void {
  const options: BuildOptions = {
    entryPoints: [path.join(root, entry)],
    outfile: path.join(root, out),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    absWorkingDir: root,
    // Strict, as the modules were (the directive must come first). CommonJS has no
    // import.meta: each use reads this file's URL, declared once at the top. Then the versions
    // of the packages whose JavaScript the bundle carries (src/util/bundled.ts), and the folder
    // function that bundled files reading `__dirname` get theirs from (OWN_FOLDERS).
    banner: {
      js: [
        '"use strict";',
        'const import_meta_url = require("node:url").pathToFileURL(__filename).href;',
        `const skillSearchBundledVersions = ${JSON.stringify(bundledVersions(root))};`,
        INSTALLED_FOLDER,
      ].join('\n'),
    },
    define: { 'import.meta.url': 'import_meta_url' },
    // Strings and names escaped by esbuild; the regular expressions and comments by asciiOnly.
    charset: 'ascii',
    logLevel: 'warning',
  };
  // Packages stay in node_modules, but for the JavaScript of better-sqlite3 (src/store/sqlite-driver.ts
  // `bundledDriver`), onnxruntime (src/embed/onnxruntime.ts `bundledRuntime`) and usearch
  // (src/vector-index/label-graph.ts `loadUsearch`): their addons are still loaded from the
  // installed packages (`*.node` stays out).
  const bundled = [...BUNDLED_PACKAGES, ...more];
  const { metafile } = buildSync({ ...options, external: [...externalBut(options, bundled), '*.node'], metafile: true });
  const strays = Object.keys(metafile.inputs).filter((input) => {
    const at = input.lastIndexOf('node_modules/');
    if (at < 0) return false;
    const name = packageOf(input.slice(at + 'node_modules/'.length)) ?? '';
    // Each from the folder whose version the bundle names (esbuild names files by their real path).
    const folder = path.resolve(root, input.slice(0, at + 'node_modules/'.length + name.length));
    return !bundled.includes(name) || realpathSync(folder) !== realpathSync(path.join(root, 'node_modules', name));
  });
  if (strays.length > 0) throw new Error(`${out}: packages bundled that should stay in node_modules, or from another folder: ${strays.join(', ')}`);
  const file = path.join(root, out);
  const bundle = ownFolders(addonsByPackage(asciiOnly(readFileSync(file, 'utf8'))));
  writeFileSync(file, bundle);
  const stray = strayImports(bundle);
  if (stray.length > 0) throw new Error(`${out}: import() outside importModule (src/util/import-module.ts), which the bin cannot run: ${stray.join('; ')}`);
}

/**
 * Packages whose bundled JavaScript goes with an installed addon, so it is used only when the
 * installed package is the version bundled ({@link bundledVersions}). usearch brings
 * node-gyp-build (which finds its addon) and bindings with file-uri-to-path (which it requires
 * but does not call where it has `__dirname`); better-sqlite3's `bindings` is reached only
 * without its addon's path, when the bundled driver is not used.
 */
export const ADDON_PACKAGES = ['better-sqlite3', 'onnxruntime-node', 'onnxruntime-common', 'usearch', 'node-gyp-build', 'bindings', 'file-uri-to-path'];

/**
 * Pure-JavaScript packages: gray-matter and what it requires (src/load/yaml.ts `bundledMatter`),
 * loaded by a cold hook's first SKILL.md. Nothing installed has to match them, so they are not in
 * {@link bundledVersions}. js-yaml requires esprima through a variable (an optional dependency
 * of its `!!js/function` type, which the safe loader gray-matter uses never reaches): esbuild
 * leaves that `require` as it is, and esprima is found in node_modules as before.
 */
export const PURE_PACKAGES = ['gray-matter', 'js-yaml', 'kind-of', 'section-matter', 'extend-shallow', 'is-extendable', 'strip-bom-string'];
/**
 * The packages whose JavaScript the bundle carries: each is required on a cold hook's path, and
 * requiring a package's files one by one (resolve, read, compile) cost more than compiling them
 * with the bundle under its code cache (docs/cold-start.md, fifth and tenth rounds).
 * {@link ADDON_PACKAGES} go with an addon, {@link PURE_PACKAGES} are JavaScript alone.
 */
export const BUNDLED_PACKAGES = [...ADDON_PACKAGES, ...PURE_PACKAGES];

/** What `skill-search mcp` requires besides: the MCP SDK, zod, and the SDK's JSON Schema validator and its packages ({@link MCP_BUNDLE}). */
export const MCP_PACKAGES = [
  '@modelcontextprotocol/sdk',
  'zod',
  'zod-to-json-schema',
  'ajv',
  'ajv-formats',
  'fast-uri',
  'json-schema-traverse',
  'fast-deep-equal',
];

/** `{ name: version }` of {@link ADDON_PACKAGES} as installed under `root`, which is what the build bundles. */
export function bundledVersions(root: string): Record<string, string> {
  return Object.fromEntries(
    ADDON_PACKAGES.map((name) => {
      const manifest = JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version?: unknown };
      if (typeof manifest.version !== 'string') throw new Error(`${CLI_BUNDLE}: node_modules/${name}/package.json names no version`);
      return [name, manifest.version];
    }),
  );
}

/**
 * Bundled CommonJS files that read `__dirname`, which in the bundle would name dist/cli: each
 * gets its installed folder instead, found from the bundle as Node's lookup finds the package
 * (the nearest `node_modules` up). usearch looks for its addon from its own folder.
 */
export const OWN_FOLDERS = ['usearch/javascript/dist/cjs/usearch.js'];

/** The banner's function behind {@link OWN_FOLDERS}: `node_modules/<subpath>` in the nearest folder up from the bundle that holds its package. */
const INSTALLED_FOLDER = `function skillSearchInstalledFolder(subpath) {
  const { existsSync } = require("node:fs");
  const { dirname, join } = require("node:path");
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const name = subpath.split("/", subpath.startsWith("@") ? 2 : 1).join("/");
    if (existsSync(join(dir, "node_modules", name))) return join(dir, "node_modules", subpath);
    if (dirname(dir) === dir) return join(__dirname, "node_modules", subpath);
  }
}`;

/**
 * \`bundle\` with each {@link OWN_FOLDERS} file's own \`__dirname\` declared at the top of its
 * module. Throws when one is missing, or when another bundled file reads \`__dirname\`.
 */
export function ownFolders(bundle: string): string {
  let declared = bundle;
  for (const file of OWN_FOLDERS) {
    const opening = new RegExp(`^(var \\w+ = __commonJS\\(\\{\\n  "(?:[^"\\n]*/)?node_modules/${file.replace(/[.]/g, '\\.')}"\\([\\w, ]*\\) \\{)$`, 'm');
    if (!opening.test(declared)) throw new Error(`${CLI_BUNDLE}: no module node_modules/${file} to give its own __dirname`);
    declared = declared.replace(opening, `$1\n    var __dirname = skillSearchInstalledFolder(${JSON.stringify(path.posix.dirname(file))});`);
  }
  // Module by module (esbuild heads each with its path), past the banner.
  const modules = declared.split(/^\/\/ (\S+)$/m);
  for (let i = 1; i < modules.length; i += 2)
    if (/\b__dirname\b/.test(modules[i + 1]!) && !OWN_FOLDERS.some((file) => `/${modules[i]}`.endsWith(`/node_modules/${file}`)))
      throw new Error(`${CLI_BUNDLE}: ${modules[i]} reads __dirname, which in the bundle names dist/cli (see OWN_FOLDERS)`);
  return declared;
}

/**
 * Addons that bundled JavaScript requires by a path relative to its own file, which from the
 * bundle (in dist/cli) would name no file: each is required through its package's name instead,
 * so Node finds the installed package as it finds the bundle's other packages. onnxruntime-node's
 * dist/binding.js requires `../bin/napi-v3/<platform>/<arch>/onnxruntime_binding.node`, which
 * esbuild lays out as one `require` per file it matched.
 */
export const ADDON_REQUIRES: readonly { readonly relative: string; readonly packagePath: string }[] = [
  { relative: '../bin/napi-v3/', packagePath: 'onnxruntime-node/bin/napi-v3/' },
];

/**
 * `bundle` with each {@link ADDON_REQUIRES} `require` named through its package. Throws when one
 * is missing (the package's layout changed) or a relative `require` is left.
 */
export function addonsByPackage(bundle: string): string {
  let rewritten = bundle;
  for (const { relative, packagePath } of ADDON_REQUIRES) {
    const from = `require("${relative}`;
    if (!rewritten.includes(from)) throw new Error(`${CLI_BUNDLE}: no ${from}…") to require through its package; has the package's layout changed?`);
    rewritten = rewritten.split(from).join(`require("${packagePath}`);
  }
  const left = /\brequire\((["'`])\.\.?\/.*?\1\)/.exec(rewritten);
  if (left !== null) throw new Error(`${CLI_BUNDLE}: a relative require, which would resolve from dist/cli: ${left[0]}`);
  return rewritten;
}

/** The package a bare specifier names (`@scope/name`, or `name`), else undefined. */
export function packageOf(specifier: string): string | undefined {
  if (/^(?:node:|\.|\/)/.test(specifier) || path.isAbsolute(specifier)) return undefined;
  return specifier.startsWith('@') ? specifier.split('/', 2).join('/') : specifier.split('/', 1)[0];
}

/**
 * The packages that `options` imports, every one left out (`packages: 'external'`), but for
 * `bundled`: esbuild's synchronous API takes no plugin, so the build first lists them.
 */
function externalBut(options: BuildOptions, bundled: readonly string[]): string[] {
  const { metafile } = buildSync({ ...options, packages: 'external', write: false, metafile: true, logLevel: 'silent' });
  const names = new Set<string>();
  for (const input of Object.values(metafile.inputs))
    for (const { path: specifier, external } of input.imports) {
      const name = external === true ? packageOf(specifier) : undefined;
      if (name !== undefined && !bundled.includes(name)) names.add(name);
    }
  return [...names].sort();
}

/**
 * `code` with every UTF-16 unit past ASCII written as a `\uXXXX` escape. A single character
 * past Latin-1 makes V8 hold the whole source as two bytes a character: the bin's read of the
 * bundle and its compile (with the code cache) took about 4 ms longer than for the same bundle
 * in ASCII (docs/cold-start.md). What esbuild leaves unescaped is in regular expression literals
 * (where the escape means the same character, a surrogate pair one code point under the `u`
 * flag) and comments. Throws where an escape would not mean the character: right after a
 * backslash.
 */
export function asciiOnly(code: string): string {
  const escaped = /(?<!\\)((?:\\\\)*)\\[^\x00-\x7f]/.exec(code);
  if (escaped !== null)
    throw new Error(
      `${CLI_BUNDLE}: cannot write as ASCII, a backslash before a non-ASCII character: ${code.slice(Math.max(0, escaped.index - 40), escaped.index + 10)}`,
    );
  return code.replace(/[^\x00-\x7f]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The lines of `bundle` that call `import(` other than `importModule`'s own call (a comment's line calls nothing). */
export function strayImports(bundle: string): string[] {
  return bundle
    .split('\n')
    .filter((line) => /\bimport\(/.test(line) && !/^\s*(?:\/\/|\/?\*)/.test(line) && !line.includes('skillSearchImport(specifier) : import(specifier)'))
    .map((line) => line.trim().slice(0, 120));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) bundleCli();
