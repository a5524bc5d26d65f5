/**
 * Queries run on their own session, made from the query model (use-lite-graph.ts `queryGraph`:
 * weights not pre-packed, so the session is made in about half the time); what the store keeps
 * runs on the packed passage session as before. The two differ by float rounding only: these
 * tests hold the bound on the vectors and that the answers stay those of the packed session.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { normalizeInPlace } from '../../src/embed/normalize.js';
import { createNativeUseLiteRuntime, createUseLiteEmbedder, type UseLiteRuntime } from '../../src/embed/use-lite.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import type { SearchMode } from '../../src/types.js';
import { SKILLS } from '../search/fixtures.js';

/** English, typos, curly quotes, Chinese, Japanese, mixed, long and near-duplicate prompts. */
const PROMPTS = [
  'fill in a pdf form',
  'extract the tables from this pdf and put them in a spreadsheet',
  'ship this service to the cluster',
  'the database query is really slow',
  'the databse qeury is realy slwo',
  'plz hlep me debgu this flakey tset',
  'Write “release notes” for v2.1 — the ‘breaking’ changes first',
  '帮我分析一下这个日志文件里的错误',
  '把这些图片压缩成 WebP 格式',
  'このコードのセキュリティ監査をしてください',
  'PDFのフォームに入力したい',
  'review my pull request for security issues',
  'review my pull request for style issues',
  'resize the images',
  'resize the image',
  'Convert all of these product images to WebP and shrink them for faster page loads. Also audit the repository code for leaked passwords, tokens and other secrets.',
  'Our checkout page looks dated, give it a fresh modern layout with better spacing. Also the orders query takes ten seconds on the reporting dashboard.',
  'x',
  '🙂 deploy',
  `${'a long message about refactoring the build pipeline and caching, '.repeat(12)}then deploy it`,
];

let query: UseLiteRuntime;
let packed: UseLiteRuntime;
beforeAll(async () => {
  query = await createNativeUseLiteRuntime();
  packed = await createNativeUseLiteRuntime({}, { querySession: false });
}, 60_000);

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i]!, 0);
/** In doubles: the unit vectors' own float32 rounding would otherwise be most of 1 − cosine. */
const cosine = (a: Float32Array, b: Float32Array) => dot(a, b) / Math.sqrt(dot(a, a) * dot(b, b));

describe('the USE-lite query session', () => {
  it('embeds a query within float rounding of the packed session, and passages exactly as it does', async () => {
    let differs = 0;
    for (const text of PROMPTS) {
      const [fast] = await query.embed([text], undefined, 'query');
      const [slow] = await packed.embed([text], undefined, 'query');
      const a = normalizeInPlace(fast!);
      const b = normalizeInPlace(slow!);
      const worst = Math.max(...a.map((value, i) => Math.abs(value - b[i]!)));
      expect(worst, text).toBeLessThan(5e-5);
      expect(1 - cosine(a, b), text).toBeLessThan(1e-9);
      if (worst > 0) differs += 1;
      // What the store keeps: the packed graph's vectors, bit for bit.
      const [stored] = await query.embed([text], undefined, 'passage');
      const [before] = await packed.embed([text]);
      expect(Array.from(stored!), text).toEqual(Array.from(before!));
    }
    // The queries did run on the other session (its rounding differs).
    expect(differs).toBeGreaterThan(0);
  });

  it('embeds a transient passage (never stored) on the query session, within the same rounding of the stored one', async () => {
    for (const text of PROMPTS.slice(0, 6)) {
      const [held] = await query.embed([text], undefined, 'passage', { transient: true });
      const [asQuery] = await query.embed([text], undefined, 'query');
      expect(Array.from(held!), text).toEqual(Array.from(asQuery!));
      const [stored] = await packed.embed([text], undefined, 'passage');
      const a = normalizeInPlace(held!);
      const b = normalizeInPlace(stored!);
      expect(Math.max(...a.map((value, i) => Math.abs(value - b[i]!))), text).toBeLessThan(5e-5);
    }
  });

  it('leaves the ranked answers as the packed session gives them', async () => {
    const fast = await SkillSearchEngine.open({ embedder: createUseLiteEmbedder({ runtime: Promise.resolve(query) }), ann: 'exact' });
    const slow = await SkillSearchEngine.open({ embedder: createUseLiteEmbedder({ runtime: Promise.resolve(packed) }), ann: 'exact' });
    await fast.sync(SKILLS);
    await slow.sync(SKILLS);
    for (const mode of ['hybrid', 'dense'] as SearchMode[]) {
      for (const text of PROMPTS) {
        const [a, b] = await Promise.all([fast, slow].map((engine) => engine.search(text, { mode, k: 5 })));
        expect(
          a!.map((hit) => hit.skill.name),
          `${mode}: ${text}`,
        ).toEqual(b!.map((hit) => hit.skill.name));
        for (const [i, hit] of a!.entries()) expect(Math.abs(hit.score - b![i]!.score)).toBeLessThan(1e-4);
      }
    }
  }, 60_000);
});
