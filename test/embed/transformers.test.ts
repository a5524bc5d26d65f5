import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTinyModel } from '../../scripts/make-tiny-model.js';
import { dot } from '../../src/embed/normalize.js';
import { resolveEmbedder } from '../../src/embed/resolve.js';
import { createTransformersEmbedder, truncateIds } from '../../src/embed/transformers.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import { embeddingText } from '../../src/search/skill-text.js';
import { SKILLS } from '../search/fixtures.js';

let modelsDir: string;
beforeAll(() => {
  modelsDir = mkdtempSync(join(tmpdir(), 'skill-search-models-'));
  makeTinyModel(join(modelsDir, 'tiny'), { hidden: 24 });
});
afterAll(() => rmSync(modelsDir, { recursive: true, force: true }));

describe('Transformers.js-layout embedder on onnxruntime-node (tiny generated ONNX model, offline)', () => {
  it('embeds a batch into normalised vectors of the configured size', async () => {
    const embedder = resolveEmbedder('tiny', { modelsDir });
    expect(embedder.id).toMatch(/^onnx:tiny@[0-9a-f]{12}$/);
    expect(embedder.dimensions).toBe(24);
    const vectors = await embedder.embed(['extract tables from a pdf file', 'pdf tables', 'weather forecast']);
    expect(vectors).toHaveLength(3);
    for (const vector of vectors) {
      expect(vector).toHaveLength(24);
      expect(dot(vector, vector)).toBeCloseTo(1, 5);
    }
    expect(dot(vectors[0]!, vectors[1]!)).toBeGreaterThan(dot(vectors[0]!, vectors[2]!));
  });

  it('is deterministic across batches of different sizes (padding does not leak into the mean)', async () => {
    const embedder = createTransformersEmbedder({ modelDir: join(modelsDir, 'tiny') });
    const [alone] = await embedder.embed(['slow sql query']);
    const [, padded] = await embedder.embed(['a much longer text about kubernetes deploy and docker containers', 'slow sql query']);
    Array.from(alone!).forEach((value, i) => expect(padded![i]).toBeCloseTo(value, 5));
  });

  it('drives the search engine end to end', async () => {
    const engine = await SkillSearchEngine.open({ embedder: resolveEmbedder(join(modelsDir, 'tiny')), ann: 'exact' });
    await engine.sync(SKILLS);
    // A random model only guarantees that identical text is nearest: query with a skill's own text.
    const target = SKILLS.find((skill) => skill.name === 'kubernetes-deploy')!;
    const hits = await engine.search(embeddingText(target), { mode: 'dense', abstain: false, k: 3 });
    expect(hits[0]?.skill.name).toBe('kubernetes-deploy');
    // Scores are relevance probabilities, best first.
    expect(hits[0]!.score).toBeLessThanOrEqual(1);
    expect(hits[0]!.score).toBeGreaterThanOrEqual(hits[1]!.score);
  });

  it('names the folder when the model is missing', () => {
    expect(() => resolveEmbedder('nope', { modelsDir })).toThrow(`model "nope" not found: no folder ${join(modelsDir, 'nope')}`);
    expect(() => resolveEmbedder('nope', { modelsDir })).toThrow(expect.objectContaining({ code: 'MODEL_NOT_FOUND' }));
  });

  it('names the missing file when the folder is incomplete', () => {
    expect(() => createTransformersEmbedder({ modelDir: modelsDir })).toThrow(`model folder ${modelsDir} is missing onnx/model.onnx`);
  });
});

describe('Transformers.js embedder: pooling, prefixes and truncation', () => {
  const cosine = (a: Float32Array, b: Float32Array): number => dot(a, b);

  it('adds the query prefix only to queries and the passage prefix only to passages', async () => {
    const plain = createTransformersEmbedder({ modelDir: join(modelsDir, 'tiny') });
    const prefixed = createTransformersEmbedder({ modelDir: join(modelsDir, 'tiny'), queryPrefix: 'weather forecast ', passagePrefix: 'music song ' });
    const text = 'merge pdf files';
    const [bare] = await plain.embed([text]);
    const [asQuery] = await prefixed.embed([text], undefined, 'query');
    const [asPassage] = await prefixed.embed([text], undefined, 'passage');
    const [byDefault] = await prefixed.embed([text]);
    const [manualQuery] = await plain.embed([`weather forecast ${text}`]);
    const [manualPassage] = await plain.embed([`music song ${text}`]);
    expect(cosine(asQuery!, manualQuery!)).toBeCloseTo(1, 5);
    expect(cosine(asPassage!, manualPassage!)).toBeCloseTo(1, 5);
    expect(cosine(byDefault!, asPassage!)).toBeCloseTo(1, 5);
    expect(cosine(asQuery!, bare!)).toBeLessThan(0.99);
    expect(prefixed.id).not.toBe(plain.id);
  });

  it('pools the [CLS] vector when asked (the tiny model gives [CLS] the same vector in every text)', async () => {
    const cls = createTransformersEmbedder({ modelDir: join(modelsDir, 'tiny'), pooling: 'cls' });
    const mean = createTransformersEmbedder({ modelDir: join(modelsDir, 'tiny') });
    const texts = ['kubernetes deploy', 'weather forecast'];
    const [a, b] = await cls.embed(texts);
    expect(cosine(a!, b!)).toBeCloseTo(1, 5);
    const [c, d] = await mean.embed(texts);
    expect(cosine(c!, d!)).toBeLessThan(0.9);
  });

  it('cuts texts at maxTokens', async () => {
    const capped = createTransformersEmbedder({ modelDir: join(modelsDir, 'tiny'), maxTokens: 2 });
    const [a, b] = await capped.embed(['pdf weather forecast', 'pdf music song']);
    expect(cosine(a!, b!)).toBeCloseTo(1, 5);
    expect(() => createTransformersEmbedder({ modelDir: join(modelsDir, 'tiny'), maxTokens: 1 })).toThrow(
      'Expected `maxTokens` to be an integer of at least 2, got `1`',
    );
  });

  it('keeps the closing special token when it cuts, as Hugging Face tokenizers do', () => {
    const special = new Set([101, 102]);
    expect(truncateIds([101, 7, 8, 9, 102], 4, special)).toEqual([101, 7, 8, 102]);
    expect(truncateIds([101, 7, 8, 9], 3, special)).toEqual([101, 7, 8]);
    expect(truncateIds([101, 7, 102], 4, special)).toEqual([101, 7, 102]);
  });

  it("cuts at the tokenizer's model_max_length when no maxTokens is given (3 here: [CLS] pdf [SEP])", async () => {
    const dir = join(modelsDir, 'short');
    makeTinyModel(dir, { hidden: 24, maxLength: 3 });
    const [a, b] = await createTransformersEmbedder({ modelDir: dir }).embed(['pdf weather forecast', 'pdf music song']);
    expect(cosine(a!, b!)).toBeCloseTo(1, 5);
  });

  it('reports multilingual only when told', () => {
    expect(createTransformersEmbedder({ modelDir: join(modelsDir, 'tiny') }).multilingual).toBeUndefined();
    expect(createTransformersEmbedder({ modelDir: join(modelsDir, 'tiny'), multilingual: true }).multilingual).toBe(true);
  });
});
