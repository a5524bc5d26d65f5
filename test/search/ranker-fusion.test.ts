import { describe, expect, it } from 'vitest';
import { CrossLingual } from '../../src/lang/cross-lingual.js';
import { ENGINE_DEFAULTS } from '../../src/search/options.js';
import { fusionFor } from '../../src/search/ranker.js';

describe('fusionFor', () => {
  it('keeps the engine’s fusion for a request in the catalog’s language, and the centred fused order for a translated one', async () => {
    const language = new CrossLingual();
    const english = await language.route('extract the tables from this PDF');
    const chinese = await language.route('把这个 PDF 里的表格提取出来');
    expect(chinese.terms).toBeDefined();
    expect(fusionFor(ENGINE_DEFAULTS, 0.4, english)).toMatchObject({ evidenceRerank: true, centring: ENGINE_DEFAULTS.centring, denseShare: 0.4 });
    expect(fusionFor({ ...ENGINE_DEFAULTS, centring: false }, 0.4, english).centring).toBe(false);
    expect(fusionFor({ ...ENGINE_DEFAULTS, centring: false }, 0.4, chinese).centring).toBe(true);
    expect(fusionFor(ENGINE_DEFAULTS, 0.4, chinese)).toMatchObject({ evidenceRerank: false, centring: true, denseShare: 0.4 });
    expect(fusionFor({ ...ENGINE_DEFAULTS, evidenceRerank: false }, 0.4, english).evidenceRerank).toBe(false);
  });
});
