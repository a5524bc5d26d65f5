/**
 * `SearchRequest.explain`: each hit's `why` on a four-skill catalog with the hash embedder.
 * Matched terms are the index's (lower-cased, stemmed), listed per field in LEXICAL_FIELDS order.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createHashEmbedder } from '../../src/embed/hash-embedder.js';
import { LexicalIndex } from '../../src/lexical/lexical-index.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import type { SearchMode, Skill } from '../../src/types.js';
import { makeSkill } from './fixtures.js';

const SKILLS: readonly Skill[] = [
  {
    ...makeSkill({ name: 'pdf-forms', description: 'Fill in and flatten the fields of PDF forms.', whenToUse: 'when a form must be filled' }),
    keywords: ['acroform', 'fillable'],
    body: '# PDF forms\n\nFlatten a form after filling its fields.\n',
  },
  {
    ...makeSkill({ name: 'spreadsheet', description: 'Build spreadsheets with formulas and charts.', whenToUse: 'when numbers need formulas' }),
    keywords: ['excel'],
    body: '# Spreadsheets\n\nCharts from tables.\n',
  },
  makeSkill({ name: 'git-bisect', description: 'Find the commit that introduced a bug by bisecting history.' }),
  makeSkill({ name: 'log-analysis', description: '分析服务器日志，定位错误原因。', whenToUse: '当线上服务报错时' }),
];

const FORM_QUERY = 'fill the fields of a fillable pdf form';
/** What BM25 matched of pdf-forms for FORM_QUERY: "fillable" is stemmed to the keyword's "fillabl". */
const PDF_FORMS_MATCHED = {
  name: ['pdf', 'form'],
  whenToUse: ['fill', 'form'],
  keywords: ['fillabl'],
  description: ['fill', 'field', 'pdf', 'form'],
  body: ['fill', 'field', 'pdf', 'form'],
};

let engine: SkillSearchEngine;
beforeAll(async () => {
  engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), ann: 'exact' });
  await engine.sync(SKILLS);
});

describe('explained hits', () => {
  it('hybrid: terms per field, both rankers, the relevance factors and the threshold', async () => {
    const hits = await engine.search(FORM_QUERY, { mode: 'hybrid', explain: true, k: 3 });
    expect(hits.map((hit) => hit.skill.name)).toEqual(['pdf-forms']);
    const why = hits[0]!.why!;
    expect(why.matched).toEqual(PDF_FORMS_MATCHED);
    expect(Object.keys(why.matched)).toEqual(['name', 'whenToUse', 'keywords', 'description', 'body']);
    expect(why.lexical?.coverage).toBe(1);
    // The numbers are the ones the engine ranked and scored on.
    const { ranked } = await engine.rank(FORM_QUERY, { mode: 'hybrid', k: 3 });
    const first = ranked.ranked[0]!;
    expect(first.id).toBe('pdf-forms');
    expect(why.lexical?.bm25).toBe(first.lexical);
    expect(why.dense).toEqual({ cosine: first.cosine, centered: first.centered });
    expect(why.order).toBe(first.order);
    const explained = await engine.explain(FORM_QUERY, { mode: 'hybrid', k: 3 });
    expect(why.answerable).toBe(explained.answerable);
    expect(why.fits).toBe(explained.hits[0]!.fits);
    expect(why.answerable! * why.fits!).toBeCloseTo(hits[0]!.score, 12);
    expect(why.threshold).toBe(engine.threshold('hybrid'));
    expect(why.threshold).toBeGreaterThan(0);
    expect(why.passed).toBe(true);
    expect(why.named).toBeUndefined();
    expect(why.translation).toBeUndefined();
  });

  it('a hit found by meaning alone matched no words; abstention off has threshold 0', async () => {
    const hits = await engine.search(FORM_QUERY, { mode: 'hybrid', explain: true, k: 3, abstain: false });
    // spreadsheet, matched on a prefix of one word, and git-bisect, found by meaning alone, come after pdf-forms (the
    // skill-library re-ranker puts the lexical match above the dense-only one).
    expect(hits.map((hit) => hit.skill.name)).toEqual(['pdf-forms', 'spreadsheet', 'git-bisect']);
    expect(hits[2]!.why).toMatchObject({ matched: {}, threshold: 0, passed: true });
    expect(hits[2]!.why?.lexical).toBeUndefined();
    expect(hits[2]!.why?.dense).toBeDefined();
    // "formula" is what the prefix "form" reached in spreadsheet's text.
    expect(hits[1]!.why?.matched).toEqual({ whenToUse: ['formula'], description: ['formula'] });
  });

  it('lexical mode has no dense part; dense mode matched no words', async () => {
    const [lexical] = await engine.search(FORM_QUERY, { mode: 'lexical', explain: true, k: 1 });
    expect(lexical!.why?.matched).toEqual(PDF_FORMS_MATCHED);
    expect(lexical!.why?.dense).toBeUndefined();
    expect(lexical!.why?.order).toBe(1);
    const [dense] = await engine.search(FORM_QUERY, { mode: 'dense', explain: true, k: 1 });
    expect(dense!.skill.name).toBe('pdf-forms');
    expect(dense!.why?.matched).toEqual({});
    expect(dense!.why?.lexical).toBeUndefined();
    // Dense mode orders by the centred cosine whatever `centring` says (its relevance model reads it).
    expect(dense!.why?.order).toBe(dense!.why?.dense?.centered);
  });

  it('a skill named exactly is marked named, with the words it matched', async () => {
    const [hit] = await engine.search('use git-bisect to find the bug', { explain: true, k: 2 });
    expect(hit!.score).toBe(1);
    expect(hit!.why).toMatchObject({
      matched: { name: ['git-bisect', 'git', 'bisect'], description: ['bisect', 'find', 'bug'], body: ['git-bisect', 'git', 'bisect'] },
      threshold: engine.threshold('hybrid'),
      passed: true,
      named: true,
    });
    expect(hit!.why?.answerable).toBeUndefined();
  });

  it('a translated message reports its language and the English BM25 searched', async () => {
    const [hit] = await engine.search('分析数据库错误', { explain: true, k: 1, abstain: false });
    expect(hit!.skill.name).toBe('log-analysis');
    expect(hit!.why?.translation).toEqual({ language: 'zh', english: 'analyze analysis database mistaken error false' });
    // The Chinese skill is found through its English glosses.
    expect(hit!.why?.matched).toEqual({ name: ['analysis'], body: ['analysis'], glosses: ['analyz', 'analysis', 'mistaken', 'error', 'fals'] });
  });
});

describe('without explain', () => {
  it.each<SearchMode>(['hybrid', 'lexical', 'dense'])('%s hits carry no why', async (mode) => {
    const hits = await engine.search(FORM_QUERY, { mode, k: 3, abstain: false });
    expect(hits.length).toBeGreaterThan(0);
    for (const hit of hits) expect(Object.keys(hit)).toEqual(['skill', 'score', 'via']);
    const explained = await engine.search(FORM_QUERY, { mode, k: 3, abstain: false, explain: true });
    // Explaining changes nothing about what is shown.
    expect(explained.map((hit) => [hit.skill.id, hit.score])).toEqual(hits.map((hit) => [hit.skill.id, hit.score]));
  });

  it('a lexical search reports matched fields only when asked', () => {
    const index = new LexicalIndex();
    for (const skill of SKILLS) index.upsert(skill);
    expect(index.search(FORM_QUERY, 1)[0]).not.toHaveProperty('fields');
    expect(index.search(FORM_QUERY, 1, { explain: true })[0]?.fields).toEqual(PDF_FORMS_MATCHED);
  });
});
