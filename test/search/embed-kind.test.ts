/** The engine tells the embedder what it embeds: skill texts as passages, messages (and their chunks) as queries. */
import { describe, expect, it } from 'vitest';
import { createHashEmbedder } from '../../src/embed/hash-embedder.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import type { EmbedKind, Embedder } from '../../src/types.js';
import { SKILLS } from './fixtures.js';

function recording(): { embedder: Embedder; calls: { kind: EmbedKind | undefined; texts: readonly string[] }[] } {
  const inner = createHashEmbedder();
  const calls: { kind: EmbedKind | undefined; texts: readonly string[] }[] = [];
  return {
    calls,
    embedder: {
      id: 'recording',
      dimensions: inner.dimensions,
      embed(texts, signal, kind) {
        calls.push({ kind, texts });
        return inner.embed(texts, signal);
      },
    },
  };
}

describe('embed kind', () => {
  it('embeds skills as passages and every query vector (whole message and chunks) as a query', async () => {
    const { embedder, calls } = recording();
    const engine = await SkillSearchEngine.open({ embedder, ann: 'exact' });
    await engine.sync(SKILLS);
    const synced = calls.splice(0);
    expect(synced.length).toBeGreaterThan(0);
    expect(new Set(synced.map((call) => call.kind))).toEqual(new Set(['passage']));

    await engine.search(
      'my kubernetes deploy keeps failing every single time on the staging cluster today. also the sql query is slow and the pdf export breaks',
      { mode: 'dense' },
    );
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(new Set(calls.map((call) => call.kind))).toEqual(new Set(['query']));
  });
});
