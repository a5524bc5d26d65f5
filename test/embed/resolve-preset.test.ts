import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTinyModel } from '../../scripts/make-tiny-model.js';
import { dot } from '../../src/embed/normalize.js';
import { resolveEmbedder } from '../../src/embed/resolve.js';
import { findPreset } from '../../src/model-store/presets.js';
import { installFromFolder } from '../../src/model-store/pull.js';

const e5 = findPreset('multilingual-e5-small')!;
let root: string;
let downloadsDir: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'skill-search-resolve-preset-'));
  const tiny = makeTinyModel(join(root, 'tiny'), { hidden: e5.dimensions });
  const copy = join(root, 'copy');
  mkdirSync(join(copy, 'onnx'), { recursive: true });
  for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) cpSync(join(tiny, file), join(copy, file));
  cpSync(join(tiny, 'onnx', 'model.onnx'), join(copy, e5.onnxFile));
  downloadsDir = join(root, 'downloads');
  await installFromFolder(e5, copy, { root: downloadsDir });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('resolveEmbedder with a preset id', () => {
  it('runs the installed folder with the preset settings: multilingual, query/passage prefixes', async () => {
    const embedder = resolveEmbedder('multilingual-e5-small', { downloadsDir, modelsDir: root });
    expect(embedder.id).toMatch(/^onnx:multilingual-e5-small@[0-9a-f]{12}$/);
    expect(embedder.multilingual).toBe(true);
    expect(embedder.dimensions).toBe(384);
    const [query] = await embedder.embed(['merge pdf files'], undefined, 'query');
    const [passage] = await embedder.embed(['merge pdf files'], undefined, 'passage');
    expect(dot(query!, passage!)).toBeLessThan(0.999);
  });

  it('asks for a pull when the preset is not installed', () => {
    expect(() => resolveEmbedder('gte-small', { downloadsDir, modelsDir: root })).toThrow(
      `skill-search: model "gte-small" is not downloaded yet: run 'skill-search model pull gte-small'`,
    );
  });

  it('says a changed install is damaged and must be pulled again', async () => {
    const damaged = join(root, 'damaged');
    cpSync(downloadsDir, damaged, { recursive: true });
    writeFileSync(join(damaged, e5.id, 'tokenizer_config.json'), '{}');
    expect(() => resolveEmbedder('multilingual-e5-small', { downloadsDir: damaged, modelsDir: root })).toThrow(
      `skill-search: model "multilingual-e5-small" is damaged (tokenizer_config.json is missing or changed size): run 'skill-search model pull multilingual-e5-small' again`,
    );
  });
});

describe('resolveEmbedder with a model that is not a name', () => {
  it('throws one BAD_OPTION line naming it (an options object from plain JavaScript), not a TypeError', () => {
    for (const [spec, shown] of [
      [{ model: 'use-lite' }, '{"model":"use-lite"}'],
      [42, '42'],
    ] as const) {
      expect(() => resolveEmbedder(spec as never)).toThrow(
        expect.objectContaining({
          code: 'BAD_OPTION',
          message: `skill-search: Expected \`model\` to be a model name ("use-lite", "hash", a preset of 'skill-search model list' or a model folder), got \`${shown}\``,
        }),
      );
    }
  });
});
