import { describe, expect, it } from 'vitest';
import { rankHybrid } from '../../src/search/candidates.js';
import { ENGINE_DEFAULTS } from '../../src/search/options.js';
import { phraseShare, termPairs } from '../../src/search/phrase.js';
import type { RerankModel } from '../../src/search/rerank.js';
import { makeSkill } from './fixtures.js';

describe('termPairs', () => {
  it('pairs adjacent terms as the lexical side reads them: stop words out, stemmed, a term beside itself skipped', () => {
    expect([...termPairs('Commit at the phase checkpoints, checkpoints checkpoints!')]).toEqual(['commit phas', 'phas checkpoint']);
    expect(termPairs('pdf').size).toBe(0);
  });
});

describe('phraseShare', () => {
  const workflow = makeSkill({
    name: 'workflow-patterns',
    description: 'Implement tasks by the TDD workflow, handling phase checkpoints and git commits.',
  });
  const track = makeSkill({ name: 'track-management', description: 'Manage tracks: each phase has a plan, and a checkpoint ends a track.' });

  it('is the share of the request’s pairs the skill has side by side, where a bag of words sees both alike', () => {
    const request = termPairs('commit at the phase checkpoint');
    expect(phraseShare(request, workflow)).toBe(1 / 2);
    expect(phraseShare(request, track)).toBe(0);
  });

  it('reads the name’s words and when_to_use, never a pair across two texts, and is 0 for a request with no pair', () => {
    const named = makeSkill({ name: 'scaffold-split', description: 'Datasets.', whenToUse: 'When a leaderboard compares models.' });
    expect(phraseShare(termPairs('scaffold split'), named)).toBe(1);
    expect(phraseShare(termPairs('leaderboard compares'), named)).toBe(1);
    // "split" ends the name and "datasets" begins the description.
    expect(phraseShare(termPairs('split datasets'), named)).toBe(0);
    expect(phraseShare(termPairs('datasets'), named)).toBe(0);
  });
});

describe('rankHybrid with a re-ranker that reads phrase', () => {
  const fusion = { ...ENGINE_DEFAULTS, boundaries: { penalty: 0, insteadBoost: 0 } };
  const dense = [
    { id: 'a', cosine: 0.6, centered: 0.5, plain: 0.6 },
    { id: 'b', cosine: 0.5, centered: 0.4, plain: 0.5 },
    { id: 'c', cosine: 0.4, centered: 0.3, plain: 0.4 },
    { id: 'd', cosine: 0.1, centered: 0.0, plain: 0.1 },
  ];
  const denseOf = (): { cosine: number; centered: number; plain: number } => ({ cosine: 0, centered: 0, plain: 0 });
  const terms = new Set(['phase', 'checkpoint']);
  const phraseModel = (weight: number): RerankModel => ({
    version: 1,
    provenance: {},
    depth: 2,
    lexicalDepth: 0,
    temperature: 1,
    features: ['phrase'],
    mean: [0],
    scale: [1],
    weights: [weight],
  });

  it('asks for the pool’s members alone, and their phrase evidence decides the pool’s order', () => {
    const asked: string[] = [];
    const skills = {
      of: () => undefined,
      named: () => undefined,
      phrase: (id: string): number => {
        asked.push(id);
        return id === 'b' ? 1 : 0;
      },
    };
    const first = (weight: number): string =>
      rankHybrid(dense, 0.1, [], denseOf, { ...fusion, evidenceRerank: phraseModel(weight) }, terms, 4, (id) => id, [], skills).ranked[0]!.id;
    expect(first(0)).toBe('a');
    expect(first(5)).toBe('b');
    expect(new Set(asked)).toEqual(new Set(['a', 'b']));
  });
});
