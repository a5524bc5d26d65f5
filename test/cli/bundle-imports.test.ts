import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_BUNDLE, strayImports } from '../../scripts/bundle-cli.js';
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
