import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatSkillListing } from '../../src/attachments/listing.js';
import { slotOf, statTextAt } from '../../src/load/dir-stamp.js';
import { parseSkillFile } from '../../src/load/frontmatter.js';
import { scanSkillsDir } from '../../src/load/index.js';
import { SkillPrefetcher } from '../../src/prefetch/prefetcher.js';
import type { SearchHit, Skill } from '../../src/types.js';
import { makeSkill } from '../attachments/make-skill.js';
import { staticSearcher } from '../prefetch/fake-searcher.js';
import { withMcpClient } from '../support/mcp-client.js';

const context = { path: '/s/deploy-staging/SKILL.md', source: 'skills' as const, rank: 5, defaultName: 'deploy-staging' };
const parse = (text: string) => parseSkillFile(text, context);

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const hidden = makeSkill('deploy-staging', { description: 'Deploy the app to staging' });
const deploy: Skill = { ...hidden, invocation: { model: false, user: true, reasons: ['disable-model-invocation: true'] } };
const lint = makeSkill('lint', { description: 'Lint the code' });

describe("the hosts' invocation rules on load", () => {
  it.each([
    ['true', { model: false, user: true, reasons: ['disable-model-invocation: true'] }],
    ['"true"', { model: false, user: true, reasons: ['disable-model-invocation: true'] }],
    ['false', undefined],
  ])('disable-model-invocation: %s', (value, invocation) => {
    const { skill } = parse(`---\ndescription: Deploy\ndisable-model-invocation: ${value}\n---\n`);
    expect(skill?.invocation).toEqual(invocation);
  });

  it('user-invocable: false hides the skill from the menu only', () => {
    expect(parse('---\ndescription: Deploy\nuser-invocable: false\n---\n').skill?.invocation).toEqual({
      model: true,
      user: false,
      reasons: ['user-invocable: false'],
    });
  });

  it('keeps the rule when the frontmatter is read line by line (an unquoted ": ")', () => {
    const { skill, diagnostics } = parse('---\ndescription: Deploy: staging only\ndisable-model-invocation: true\n---\n');
    expect(diagnostics.map((d) => d.code)).toEqual(['bad-yaml']);
    expect(skill?.invocation?.model).toBe(false);
  });

  it("reads Codex's policy from agents/openai.yaml beside SKILL.md", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'host-rules-'));
    dirs.push(dir);
    for (const name of ['release', 'broken', 'plain']) {
      mkdirSync(join(dir, name, 'agents'), { recursive: true });
      writeFileSync(join(dir, name, 'SKILL.md'), `---\ndescription: The ${name} skill\n---\n`);
    }
    writeFileSync(join(dir, 'release', 'agents', 'openai.yaml'), 'interface:\n  display_name: Release\npolicy:\n  allow_implicit_invocation: false\n');
    writeFileSync(join(dir, 'broken', 'agents', 'openai.yaml'), 'policy: [unclosed\n');
    const result = await scanSkillsDir(dir, { source: 'codex', rank: 9 });
    expect(result.skills.map((skill) => [skill.name, skill.invocation?.model ?? true])).toEqual([
      ['broken', true],
      ['plain', true],
      ['release', false],
    ]);
    expect(result.diagnostics.map((d) => [d.code, d.path, d.severity])).toEqual([['bad-yaml', join(dir, 'broken', 'agents', 'openai.yaml'), 'warning']]);
    // The policy file is part of what the scan read: its stat is in the stamp, beside its SKILL.md's.
    const release = result.stamp.files.indexOf(join(dir, 'release', 'SKILL.md'));
    const { size, mtimeMs } = statSync(join(dir, 'release', 'agents', 'openai.yaml'));
    expect(statTextAt(result.stamp, slotOf(release) + 1)).toMatch(new RegExp(`^${size}:${mtimeMs}:`));
    expect(statTextAt(result.stamp, slotOf(result.stamp.files.indexOf(join(dir, 'plain', 'SKILL.md'))) + 1)).toBeNull();
  });
});

describe('frontmatter read as Claude Code reads it', () => {
  it('when_to_use wins over whenToUse when both are set', () => {
    expect(parse('---\ndescription: d\nwhenToUse: camel\nwhen_to_use: snake\n---\n').skill?.whenToUse).toBe('snake');
    expect(parse('---\ndescription: d\nwhenToUse: camel\n---\n').skill?.whenToUse).toBe('camel');
  });

  it("searches the values of the Agent Skills spec's metadata like tags", () => {
    const { skill, diagnostics } = parse('---\ndescription: d\nmetadata:\n  author: acme\n  topics: [k8s, helm]\n  nested: {a: 1}\n---\n');
    expect(diagnostics).toEqual([]);
    expect(skill?.keywords).toEqual(['acme', 'k8s', 'helm']);
  });
});

describe('a skill kept from the model is offered nowhere', () => {
  it('is left out of the listing, yet still shadows its name', () => {
    const lower = makeSkill('deploy-staging', { description: 'Another deploy', source: 'mcp' });
    expect(formatSkillListing([deploy, lint, lower]).content).toBe('- lint: Lint the code');
  });

  it('is not discovered by prefetch, even when the message names it exactly (the user runs it; the model could not)', async () => {
    const dense: SearchHit[] = [
      { skill: deploy, score: 0.9, via: ['dense'] },
      { skill: lint, score: 0.5, via: ['lexical'] },
    ];
    const byMeaning = await new SkillPrefetcher({ searcher: staticSearcher(dense) }).start({ userMessage: 'ship it to staging' }).collect();
    expect(byMeaning?.skills.map((skill) => skill.name)).toEqual(['lint']);
    const named = await new SkillPrefetcher({ searcher: staticSearcher([{ skill: deploy, score: 1, via: ['exact'] }]) })
      .start({ userMessage: '/deploy-staging' })
      .collect();
    expect(named).toBeNull();
  });

  it('is not returned by MCP search_skills, and read_skill refuses it by name, as the Skill tool does', async () => {
    const hits: SearchHit[] = [
      { skill: deploy, score: 0.9, via: ['dense'] },
      { skill: lint, score: 0.4, via: ['dense'] },
    ];
    await withMcpClient(hits, [deploy, lint], async (client) => {
      const result = await client.callTool({ name: 'search_skills', arguments: { query: 'deploy to staging' } });
      expect((result.structuredContent as { hits: { name: string }[] }).hits.map((hit) => hit.name)).toEqual(['lint']);
      const read = await client.callTool({ name: 'read_skill', arguments: { name: 'deploy-staging' } });
      expect(read).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'Skill "deploy-staging" can only be invoked by the user (disable-model-invocation: true).' }],
      });
    });
  });
});

describe("the Skill tool refuses a skill kept from the model, as Claude Code's does", () => {
  it('returns an error naming the rule, and records nothing', async () => {
    const { InvocationLog, invokeSkill } = await import('../../src/api/attachments.js');
    const log = new InvocationLog();
    expect(invokeSkill({ skill: 'deploy-staging' }, { skills: [deploy, lint], log })).toEqual({
      isError: true,
      content: 'Skill "deploy-staging" can only be invoked by the user (disable-model-invocation: true).',
    });
    expect(log.invoked()).toEqual([]);
    expect(invokeSkill({ skill: 'lint' }, { skills: [deploy, lint], log }).isError).toBe(false);
  });
});
