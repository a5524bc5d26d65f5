import { describe, expect, it } from 'vitest';
import { scoreByLanguage } from '../../src/eval/run.js';

const ranked = (...names: string[]) => names.map((name) => ({ id: name, name }));

describe('scoreByLanguage', () => {
  it('scores each query language apart, by the script the query is written in', () => {
    const scores = scoreByLanguage([
      { query: 'merge these pdf files', outcome: { relevant: ['pdf'], ranked: ranked('pdf', 'docx') } },
      { query: 'make a slide deck', outcome: { relevant: ['pptx'], ranked: ranked('docx', 'pptx') } },
      { query: '合并几个 PDF 文件', outcome: { relevant: ['pdf'], ranked: ranked('xlsx', 'docx', 'pdf') } },
      { query: 'PDF から表を抽出して', outcome: { relevant: ['pdf'], ranked: ranked('docx') } },
      // A "nothing fits" query counts towards abstention only, so it adds no language row.
      { query: '谢谢', outcome: { relevant: [], ranked: [] } },
    ]);
    expect(scores).toEqual({
      en: { queries: 2, hitAt1: 0.5, hitAt5: 1, mrr: 0.75 },
      ja: { queries: 1, hitAt1: 0, hitAt5: 0, mrr: 0 },
      zh: { queries: 1, hitAt1: 0, hitAt5: 1, mrr: 0.3333 },
    });
  });
});
