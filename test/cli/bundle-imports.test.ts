import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addonsByPackage, asciiOnly, BUNDLED_PACKAGES, CLI_BUNDLE, packageOf, strayImports } from '../../scripts/bundle-cli.js';
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
  });

  it.skipIf(!existsSync(path.join(ROOT, CLI_BUNDLE)))('the built bundle has none', () => {
    expect(strayImports(readFileSync(path.join(ROOT, CLI_BUNDLE), 'utf8'))).toEqual([]);
  });

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

  it.skipIf(!existsSync(path.join(ROOT, CLI_BUNDLE)))('the built bundle is ASCII', () => {
    expect(readFileSync(path.join(ROOT, CLI_BUNDLE), 'utf8').match(/[^\x00-\x7f].{0,20}/)).toBeNull();
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

  it.skipIf(!existsSync(path.join(ROOT, CLI_BUNDLE)))("carries better-sqlite3's and onnxruntime's JavaScript, without bindings or addons", () => {
    const bundle = readFileSync(path.join(ROOT, CLI_BUNDLE), 'utf8');
    expect(BUNDLED_PACKAGES).toEqual(['better-sqlite3', 'onnxruntime-node', 'onnxruntime-common']);
    expect(bundle).toContain('// node_modules/better-sqlite3/lib/database.js');
    expect(bundle).toContain('// node_modules/onnxruntime-node/dist/backend.js');
    expect(bundle).toContain('// node_modules/onnxruntime-common/dist/ort-common.node.js');
    expect(bundle).not.toMatch(/\/\/ node_modules\/(?!better-sqlite3\/|onnxruntime-node\/|onnxruntime-common\/)/);
    expect(bundle).toContain('require("bindings")');
    expect(bundle).toContain(`require("onnxruntime-node/bin/napi-v3/${process.platform}/${process.arch}/onnxruntime_binding.node")`);
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
