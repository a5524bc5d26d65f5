import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ADDON_PACKAGES,
  addonsByPackage,
  asciiOnly,
  BUNDLED_PACKAGES,
  CLI_BUNDLE,
  HOOK_BUNDLE,
  MCP_BUNDLE,
  MCP_PACKAGES,
  ownFolders,
  packageOf,
  strayImports,
} from '../../scripts/bundle-cli.js';
import { importModule } from '../../src/util/import-module.js';
import { ROOT } from './helpers.js';

describe('dynamic imports in the CLI bundle', () => {
  it('a stray import() is found; importModule is the one allowed', () => {
    const bundle = [
      'function importModule(specifier) {',
      '  return typeof skillSearchImport === "function" ? skillSearchImport(specifier) : import(specifier);',
      '}',
      '    const { Tokenizer } = await import("@huggingface/tokenizers");',
    ].join('\n');
    expect(strayImports(bundle)).toEqual(['const { Tokenizer } = await import("@huggingface/tokenizers");']);
    // A comment's line imports nothing (the MCP SDK's comments name `import()`).
    expect(strayImports(['// emits an indexed access rather than an inline `import()`', ' * or `import("x")`', '/* import() */'].join('\n'))).toEqual([]);
  });

  it.skipIf(!existsSync(path.join(ROOT, CLI_BUNDLE)))('the built bundles have none', () => {
    for (const out of [CLI_BUNDLE, HOOK_BUNDLE, MCP_BUNDLE]) expect(strayImports(readFileSync(path.join(ROOT, out), 'utf8'))).toEqual([]);
  });

  it.skipIf(!existsSync(path.join(ROOT, HOOK_BUNDLE)))("the hook's bundle holds the hook's modules, not the other commands'", () => {
    const bundle = readFileSync(path.join(ROOT, HOOK_BUNDLE), 'utf8');
    for (const module of [
      'dist/cli/hook-main.js',
      'dist/cli/commands/hook.js',
      'dist/integrations/live-index.js',
      'node_modules/usearch/javascript/dist/cjs/usearch.js',
    ])
      expect(bundle).toContain(`// ${module}\n`);
    for (const module of [
      'dist/cli/main.js',
      'dist/cli/commands.js',
      'dist/cli/commands/index-cmd.js',
      'dist/integrations/mcp-server.js',
      'dist/hosts/install.js',
    ])
      expect(bundle).not.toContain(`// ${module}\n`);
    expect(readFileSync(path.join(ROOT, CLI_BUNDLE), 'utf8')).toContain('// dist/cli/commands/index-cmd.js\n');
  });

  it.skipIf(!existsSync(path.join(ROOT, MCP_BUNDLE)))(
    "the MCP server's bundle carries the MCP SDK, zod and Ajv, which the CLI's leaves in node_modules",
    () => {
      const packagesIn = (out: string) => {
        const bundle = readFileSync(path.join(ROOT, out), 'utf8');
        return new Set([...bundle.matchAll(/^\/\/ node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)].map((match) => match[1]));
      };
      expect(packagesIn(MCP_BUNDLE)).toEqual(new Set([...BUNDLED_PACKAGES, ...MCP_PACKAGES]));
      expect(packagesIn(CLI_BUNDLE)).toEqual(new Set(BUNDLED_PACKAGES));
      const mcp = readFileSync(path.join(ROOT, MCP_BUNDLE), 'utf8');
      expect(mcp).toContain('// dist/integrations/mcp-server.js\n');
      expect(mcp).toContain('// node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js\n');
      // Nothing of theirs is required from node_modules (Ajv's `'require("ajv/…")'` are strings of the code it generates).
      expect(mcp).not.toMatch(/(?<![`'"])\brequire\("(?:@modelcontextprotocol\/sdk|zod|ajv)[/"]/);
      expect(readFileSync(path.join(ROOT, CLI_BUNDLE), 'utf8')).toMatch(/\brequire\("@modelcontextprotocol\/sdk\//);
    },
  );

  it('importModule imports by itself outside the bundle', async () => {
    const { sep } = await importModule<typeof import('node:path')>('node:path');
    expect(sep).toBe(path.sep);
  });
});

describe('the CLI bundle in ASCII', () => {
  it('escapes what esbuild leaves (regular expressions, comments) to the same characters', () => {
    const code = 'const QUOTES = /[“”]+/g; // a → b\nconst KANA = /[\u30a0-\u30ffー]{2,}/u; const FACE = /😀/u;';
    const escaped = asciiOnly(code);
    expect(/^[\x00-\x7f]*$/.test(escaped)).toBe(true);
    const run = (source: string) => new Function(`${source}; return [QUOTES.test('“hi”'), KANA.test('データ'), FACE.test('😀')];`)();
    expect(run(escaped)).toEqual([true, true, true]);
    expect(run(code)).toEqual([true, true, true]);
  });

  it('refuses a character right after a backslash, where an escape would mean something else', () => {
    expect(() => asciiOnly('const DASH = /\\—/;')).toThrow(/backslash before a non-ASCII character/);
    expect(asciiOnly('const PATH = "\\\\—";')).toBe('const PATH = "\\\\\\u2014";');
  });

  it.skipIf(!existsSync(path.join(ROOT, CLI_BUNDLE)))('the built bundles are ASCII', () => {
    for (const out of [CLI_BUNDLE, HOOK_BUNDLE, MCP_BUNDLE]) expect(readFileSync(path.join(ROOT, out), 'utf8').match(/[^\x00-\x7f].{0,20}/)).toBeNull();
  });
});

describe('the packages in the CLI bundle', () => {
  it('names the package of a bare specifier only', () => {
    expect(packageOf('better-sqlite3')).toBe('better-sqlite3');
    expect(packageOf('better-sqlite3/package.json')).toBe('better-sqlite3');
    expect(packageOf('@huggingface/tokenizers/dist/x.js')).toBe('@huggingface/tokenizers');
    expect(packageOf('node:fs')).toBeUndefined();
    expect(packageOf('./util')).toBeUndefined();
    expect(packageOf('/abs/file.js')).toBeUndefined();
  });

  it.skipIf(!existsSync(path.join(ROOT, CLI_BUNDLE)))("carries better-sqlite3's, onnxruntime's and usearch's JavaScript, without their addons", () => {
    const bundle = readFileSync(path.join(ROOT, CLI_BUNDLE), 'utf8');
    expect(ADDON_PACKAGES).toEqual(['better-sqlite3', 'onnxruntime-node', 'onnxruntime-common', 'usearch', 'node-gyp-build', 'bindings', 'file-uri-to-path']);
    for (const file of [
      'better-sqlite3/lib/database.js',
      'onnxruntime-node/dist/backend.js',
      'onnxruntime-common/dist/ort-common.node.js',
      'usearch/javascript/dist/cjs/usearch.js',
      'node-gyp-build/node-gyp-build.js',
      'bindings/bindings.js',
    ])
      expect(bundle).toContain(`// node_modules/${file}`);
    const packages = [...bundle.matchAll(/^\/\/ node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)].map((match) => match[1]);
    expect(new Set(packages)).toEqual(new Set(BUNDLED_PACKAGES));
    expect(bundle).not.toMatch(/\brequire\("\.\.?\//);
    expect(bundle).toContain(`require("onnxruntime-node/bin/napi-v3/${process.platform}/${process.arch}/onnxruntime_binding.node")`);
    expect(bundle).toContain('var __dirname = skillSearchInstalledFolder("usearch/javascript/dist/cjs");');
    // Each version as installed: the bundled JavaScript is used only with the addon it goes with.
    const versions = (name: string) => (JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
    expect(bundle).toContain(`const skillSearchBundledVersions = ${JSON.stringify(Object.fromEntries(ADDON_PACKAGES.map((name) => [name, versions(name)])))};`);
  });

  it.skipIf(!existsSync(path.join(ROOT, HOOK_BUNDLE)))(
    "both bundles carry gray-matter's and js-yaml's JavaScript, evaluated only when frontmatter is parsed",
    () => {
      for (const out of [CLI_BUNDLE, HOOK_BUNDLE]) {
        const bundle = readFileSync(path.join(ROOT, out), 'utf8');
        for (const file of [
          'gray-matter/index.js',
          'gray-matter/lib/engines.js',
          'js-yaml/lib/js-yaml/loader.js',
          'kind-of/index.js',
          'section-matter/index.js',
        ])
          expect(bundle).toContain(`// node_modules/${file}\n`);
        // esbuild's wrapper runs a CommonJS module at its first call: the one call is src/load/yaml.ts `bundledMatter`'s.
        expect(bundle).toContain('var require_gray_matter = __commonJS({');
        expect(bundle.match(/\brequire_gray_matter\(\)/g)).toEqual(['require_gray_matter()']);
        expect(bundle).toMatch(/function bundledMatter\(\) \{\n {2}return typeof require === "function" \? require_gray_matter\(\) : void 0;\n\}/);
      }
    },
  );

  it("gives usearch's module its own __dirname, and refuses another bundled file that reads it", () => {
    const usearch = [
      '// node_modules/usearch/javascript/dist/cjs/usearch.js',
      'var require_usearch = __commonJS({',
      '  "node_modules/usearch/javascript/dist/cjs/usearch.js"(exports) {',
      '    function getDirName() { return __dirname; }',
      '  }',
      '});',
    ].join('\n');
    expect(ownFolders(usearch).split('\n').slice(2, 4)).toEqual([
      '  "node_modules/usearch/javascript/dist/cjs/usearch.js"(exports) {',
      '    var __dirname = skillSearchInstalledFolder("usearch/javascript/dist/cjs");',
    ]);
    // A node_modules reached through a link: esbuild names the files by their real path.
    const linked = usearch.replaceAll('node_modules/', '../elsewhere/node_modules/');
    expect(ownFolders(linked)).toContain('var __dirname = skillSearchInstalledFolder("usearch/javascript/dist/cjs");');
    expect(() => ownFolders('// node_modules/other/index.js\nvar x = 1;')).toThrow(/no module node_modules\/usearch\/javascript\/dist\/cjs\/usearch\.js/);
    expect(() => ownFolders(`${usearch}\n\n// node_modules/other/index.js\nvar dir = __dirname;`)).toThrow(/node_modules\/other\/index\.js reads __dirname/);
  });

  it("requires onnxruntime's binding through the package, and refuses a relative require left over", () => {
    const laid = 'var m = __glob({ "../bin/napi-v3/linux/x64/onnxruntime_binding.node": () => require("../bin/napi-v3/linux/x64/onnxruntime_binding.node") });';
    expect(addonsByPackage(laid)).toBe(
      'var m = __glob({ "../bin/napi-v3/linux/x64/onnxruntime_binding.node": () => require("onnxruntime-node/bin/napi-v3/linux/x64/onnxruntime_binding.node") });',
    );
    expect(() => addonsByPackage('const x = require("onnxruntime-node");')).toThrow(/no require\("\.\.\/bin\/napi-v3\/…"\)/);
    expect(() => addonsByPackage(`${laid}\nconst y = require("./other.node");`)).toThrow(
      /a relative require, which would resolve from dist\/cli: require\("\.\/other\.node"\)/,
    );
  });
});
