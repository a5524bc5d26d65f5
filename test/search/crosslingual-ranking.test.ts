/**
 * Bilingual ranking on the 22-skill fixture catalog (20 English skills, 2 written in Chinese)
 * with the real model (USE-lite) and the real dictionary (CC-CEDICT): each expectation states
 * why that skill holds that position.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createUseLiteEmbedder } from '../../src/embed/use-lite.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import type { SearchMode } from '../../src/types.js';
import { makeSkill, SKILLS } from './fixtures.js';

let engine: SkillSearchEngine;
beforeAll(async () => {
  engine = await SkillSearchEngine.open({ embedder: createUseLiteEmbedder(), ann: 'exact' });
  await engine.sync(SKILLS);
});

async function names(query: string, mode: SearchMode = 'hybrid', k = 2): Promise<string[]> {
  return (await engine.search(query, { mode, k, abstain: false })).map((hit) => hit.skill.name);
}

describe('Chinese requests over English skills', () => {
  it('keeps the Latin keyword and translates the rest', async () => {
    // pdf: "PDF" as written plus 表格 → table and 提取 → extract, both in its description.
    // sql-optimization: 表格 is read "table" (not "form") beside PDF, nearest to SQL by meaning.
    expect(await names('把这个 PDF 里的表格提取出来')).toEqual(['pdf', 'sql-optimization']);
  });

  it('finds a skill from Chinese words alone', async () => {
    // test-driven-development: 写 → write, 测试 → test, 实现 → implement.
    // systematic-debugging: its "when a test fails" shares the test vocabulary.
    expect(await names('先写测试再写实现')).toEqual(['test-driven-development', 'systematic-debugging']);
    // sql-optimization: 查询 → query, 慢 → slow, 数据库 → database.
    expect((await names('这个查询太慢了，帮我优化数据库'))[0]).toBe('sql-optimization');
    // security-audit: 安全 is read "security" beside 代码 → code (not "safe"), which is in its
    // name, and "code" in its description; code-review: "security" and "review" in its description.
    expect(await names('检查代码里的安全漏洞')).toEqual(['security-audit', 'code-review']);
  });

  it('still suggests (abstention on) what the translated request fits', async () => {
    const hits = await engine.search('把服务部署到 Kubernetes 集群');
    expect(hits.map((hit) => hit.skill.name)).toEqual(['kubernetes-deploy']);
  });
});

describe('Japanese requests over English skills', () => {
  it('reads kanji through CC-CEDICT and katakana loanwords through the catalog vocabulary', async () => {
    // test-driven-development: テスト → test (loanword) carries it; 実装 is read character by
    // character (实 "real", 装 "adornment") and kana is dropped.
    expect((await names('テストを先に書いてから実装する'))[0]).toBe('test-driven-development');
    // security-audit: セキュリティ → security (loanword), 監査 → supervise, audit (监查).
    // code-review: "security" is in its description too.
    expect(await names('セキュリティ監査をお願い')).toEqual(['security-audit', 'code-review']);
  });
});

describe('English requests over skills written in Chinese', () => {
  it('matches the English glosses added at index time', async () => {
    // meeting-minutes (整理会议记录，生成会议纪要…): 会议 → meeting, 纪要 → minutes/summary.
    // Second, code-review: one word each for the English skills, and its "action" (in
    // "actionable") is in no other skill, where release-notes' "write" is in several (the
    // re-ranker weighs matched words by rarity, `LexicalMatch.rarest`).
    expect(await names('write up the meeting minutes with action items')).toEqual(['meeting-minutes', 'code-review']);
    // log-analysis (分析服务器日志…): 服务器 → server, 日志 → log, 错误 → error.
    expect((await names('find the errors in the server logs'))[0]).toBe('log-analysis');
    // BM25 alone: mcp-builder's `whenToUse` has "server" (weight 1.5); log-analysis matches
    // error, server and log through its glosses, which weigh as a description word does.
    expect(await names('find the errors in the server logs', 'lexical')).toEqual(['mcp-builder', 'log-analysis']);
  });

  it('meets a Chinese request and a Chinese skill in English when the catalog is mostly English', async () => {
    // The request is translated (会议 → meeting, 记录 → record, note-taker): meeting-minutes
    // matches through its own glosses; release-notes through "notes".
    expect(await names('整理会议记录', 'lexical')).toEqual(['meeting-minutes', 'release-notes']);
  });
});

describe("the design's own example: description 系统化调试流程", () => {
  it('is found by English requests through its glosses alone', async () => {
    // The English debugging skill is swapped for one whose name (pinyin) and description
    // (系统化调试流程, "systematic debugging process") share no letter with the requests.
    const skills = SKILLS.map((skill) =>
      skill.name === 'systematic-debugging' ? makeSkill({ name: 'xitong-tiaoshi', description: '系统化调试流程' }) : skill,
    );
    const local = await SkillSearchEngine.open({ embedder: createUseLiteEmbedder(), ann: 'exact' });
    await local.sync(skills);
    // Ranked first: 调试 → debug, debugging; 系统 → system; 流程 → course, sequence of processes.
    for (const query of ['walk me through debugging this step by step', 'I need a systematic process to debug this']) {
      expect((await local.search(query, { k: 1, abstain: false })).map((hit) => hit.skill.name)).toEqual(['xitong-tiaoshi']);
    }
    // Suggested first with abstention on when most of the request matches (system, process, debug;
    // the shown list's cut may add a weak second hit); one word in four ("debugging") is too little
    // evidence to show anything.
    expect((await local.search('I need a systematic process to debug this'))[0]?.skill.name).toBe('xitong-tiaoshi');
    expect(await local.search('walk me through debugging this step by step')).toEqual([]);
    await local.close();
  });
});
