/**
 * Japanese requests whose meaning is carried by katakana loanwords, over a small English catalog
 * (descriptions written for this test) with the real model (USE-lite) and dictionary (CC-CEDICT).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createUseLiteEmbedder } from '../../src/embed/use-lite.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import { makeSkill } from './fixtures.js';

const CATALOG = [
  makeSkill({ name: 'changelog-automation', description: 'Generate a changelog and release notes from commit history. Use when cutting a release.' }),
  makeSkill({ name: 'terraform-module-library', description: 'Reusable Terraform modules for cloud infrastructure as code on AWS, Azure and GCP.' }),
  makeSkill({ name: 'deployment-pipeline-design', description: 'Design CI/CD pipelines with approval gates, recent build caching and rollback.' }),
  makeSkill({ name: 'writing-plans', description: 'Write an implementation plan before touching code, step by step.' }),
  makeSkill({ name: 'e2e-testing-patterns', description: 'End-to-end browser tests with Playwright; debugging unreliable tests.' }),
  makeSkill({ name: 'technical-writing', description: 'Write clear documentation and guides for recent readers.' }),
];

let engine: SkillSearchEngine;
beforeAll(async () => {
  engine = await SkillSearchEngine.open({ embedder: createUseLiteEmbedder(), ann: 'exact' });
  await engine.sync(CATALOG);
});

describe('katakana loanwords over English skills', () => {
  it('reads a two-word compound as the pair it splits into (リリースノート = release notes)', async () => {
    // "recent" shares the skeleton r-s-n-t and is in two descriptions; release notes is in one.
    // Ranked view: on a six-skill catalog the relevance model's abstention is not what is tested.
    const hits = await engine.search('リリースノートを書いて', { k: 3, abstain: false });
    expect(hits[0]?.skill.name).toBe('changelog-automation');
  });

  it('reads テラフォーム as terraform, its r borrowed as a long vowel', async () => {
    const hits = await engine.search('テラフォームでインフラを構築して', { k: 3, abstain: false });
    expect(hits[0]?.skill.name).toBe('terraform-module-library');
  });
});
