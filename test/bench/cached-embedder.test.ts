import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CachedEmbedder } from '../../bench/cached-embedder.js';
import { createHashEmbedder } from '../../src/embed/hash-embedder.js';
import type { Embedder } from '../../src/types.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The hash embedder, recording every text that reaches the "model". */
function counting(): Embedder & { seen: string[] } {
  const inner = createHashEmbedder({ dimensions: 16 });
  const seen: string[] = [];
  return { id: inner.id, dimensions: inner.dimensions, seen, embed: (texts, signal) => (seen.push(...texts), inner.embed(texts, signal)) };
}

describe('CachedEmbedder', () => {
  it('embeds primed skill texts once per machine, not once per run', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-cache-'));
    dirs.push(dir);
    const first = counting();
    expect(await new CachedEmbedder(first, dir).prime(['pdf\nRead PDFs\n', 'git\nCommit\n', 'pdf\nRead PDFs\n'])).toBe(2);
    expect(first.seen).toEqual(['pdf\nRead PDFs\n', 'git\nCommit\n']);

    const second = counting();
    const cached = new CachedEmbedder(second, dir);
    const [vector] = await cached.embed(['git\nCommit\n']);
    expect(second.seen).toEqual([]);
    expect(vector).toEqual((await createHashEmbedder({ dimensions: 16 }).embed(['git\nCommit\n']))[0]);
  });

  it('never persists query texts, so a latency run always pays the model', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-cache-'));
    dirs.push(dir);
    const model = counting();
    const cached = new CachedEmbedder(model, dir);
    await cached.embed(['find a pdf skill']);
    await cached.embed(['find a pdf skill']);
    expect(model.seen).toEqual(['find a pdf skill', 'find a pdf skill']);
    await new CachedEmbedder(model, dir).embed(['find a pdf skill']);
    expect(model.seen).toHaveLength(3);
  });

  it('remembers queries only while memo is on, and forgets them when it is turned off', async () => {
    const model = counting();
    const cached = new CachedEmbedder(model, undefined);
    cached.memo = true;
    await cached.embed(['q1', 'q2']);
    await cached.embed(['q2', 'q1']);
    expect(model.seen).toEqual(['q1', 'q2']);
    cached.memo = false;
    await cached.embed(['q1']);
    cached.memo = true;
    await cached.embed(['q1']);
    expect(model.seen).toEqual(['q1', 'q2', 'q1', 'q1']);
  });
});
