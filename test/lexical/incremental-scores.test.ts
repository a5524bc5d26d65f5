import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LexicalIndex } from '../../src/lexical/lexical-index.js';
import { makeSkill } from '../attachments/make-skill.js';

const WORDS = ['pdf', 'form', 'fill', 'git', 'bisect', 'image', 'resize', 'sql', 'migration', 'release', 'notes', 'flaky', 'test', 'deploy', 'docker', 'audit'];
const QUERIES = ['fill a pdf form', 'git bisect a regression', 'resize images', 'write release notes', 'flaky test in ci', 'deploy with docker'];

const skill = (i: number, words: readonly string[], version = 0) =>
  makeSkill(`skill-${i}`, { description: words.join(' '), contentHash: `h${i}-${version}-${words.join('.')}` });

const scores = (index: LexicalIndex) => QUERIES.map((query) => index.search(query, 50).sort((a, b) => a.id.localeCompare(b.id)));

describe('incremental and fresh lexical indexes score alike', () => {
  it('after any sequence of adds, edits and removals, every score equals a fresh build', () => {
    const description = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 });
    const op = fc.tuple(fc.constantFrom('upsert', 'remove'), fc.nat(19), description);
    fc.assert(
      fc.property(fc.array(description, { minLength: 20, maxLength: 20 }), fc.array(op, { minLength: 1, maxLength: 60 }), (initial, ops) => {
        const incremental = new LexicalIndex();
        const current = new Map<number, readonly string[]>();
        initial.forEach((words, i) => {
          incremental.upsert(skill(i, words));
          current.set(i, words);
        });
        scores(incremental);
        ops.forEach(([kind, i, words], step) => {
          if (kind === 'remove') {
            incremental.remove(`skill-${i}`);
            current.delete(i);
          } else {
            incremental.upsert(skill(i, words, step + 1));
            current.set(i, words);
          }
          // Searching between changes must not leave anything stale behind either.
          if (step % 7 === 0) scores(incremental);
        });
        const fresh = new LexicalIndex();
        for (const [i, words] of current) fresh.upsert(skill(i, words));
        const got = scores(incremental);
        const want = scores(fresh);
        expect(got.map((hits) => hits.map((hit) => hit.id))).toEqual(want.map((hits) => hits.map((hit) => hit.id)));
        got.forEach((hits, q) => hits.forEach((hit, h) => expect(Math.abs(hit.score - want[q]![h]!.score)).toBeLessThan(1e-9)));
      }),
      { numRuns: 60 },
    );
  });
});

describe('incremental and fresh engines score alike (hybrid, dense, lexical)', () => {
  it('after edits and removals, every mode returns the scores of a fresh engine', async () => {
    const { SkillSearchEngine } = await import('../../src/search/engine.js');
    const { createHashEmbedder } = await import('../../src/embed/hash-embedder.js');
    const { SKILLS, makeSkill: makeSearchSkill } = await import('../search/fixtures.js');
    const incremental = await SkillSearchEngine.open({ embedder: createHashEmbedder(), ann: 'exact' });
    await incremental.sync(SKILLS);
    await incremental.search('warm up the lexical side', { mode: 'lexical' });
    const edited = makeSearchSkill({ name: 'pdf', description: 'Compress scanned images inside PDF files.' });
    // Every other skill goes, then comes back edited: many discarded documents.
    const final = SKILLS.map((s, i) => (i % 2 === 0 ? s : makeSearchSkill({ name: s.name, description: `${s.description} Also compress pdf images.` })));
    await incremental.sync(SKILLS.filter((_, i) => i % 2 === 0));
    await incremental.sync([edited, ...final.filter((s) => s.name !== 'pdf')]);
    await incremental.sync(final);
    const fresh = await SkillSearchEngine.open({ embedder: createHashEmbedder(), ann: 'exact' });
    await fresh.sync(final);
    for (const mode of ['lexical', 'dense', 'hybrid'] as const) {
      for (const query of ['compress scanned pdf', 'slow sql query', 'resize an image for the web']) {
        const got = await incremental.search(query, { mode, abstain: false, k: 30 });
        const want = await fresh.search(query, { mode, abstain: false, k: 30 });
        expect(got.map((hit) => hit.skill.name)).toEqual(want.map((hit) => hit.skill.name));
        got.forEach((hit, i) => expect(Math.abs(hit.score - want[i]!.score)).toBeLessThan(1e-9));
      }
    }
  });
});
