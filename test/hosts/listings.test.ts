/**
 * What each host sends about skills, captured with the three test skills installed: Claude Code's
 * skill listing and Codex's skills section must read exactly as the fixtures (the listing
 * profiles are built from them). `UPDATE_HOST_FIXTURES=1 npm run test:hosts` rewrites the fixtures,
 * whole request bodies included, after a host version change.
 */
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startAnthropicStub } from './support/anthropic-stub.js';
import { claudeSkillListing, promptClaude } from './support/claude.js';
import { codexSkillsSection, promptCodex } from './support/codex.js';
import { FIXTURES_DIR, fixture, mapStrings, placeholders } from './support/fixtures.js';
import { installedHomes } from './support/host-home.js';
import { startOpenAiStub } from './support/openai-stub.js';
import type { RecordingServer } from './support/recording-server.js';
import { OFF_TOPIC, SKILLS } from './support/skills.js';

const bins = inject('hostBins');

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

describe.skipIf(bins.claude === undefined || bins.codex === undefined)('the skill listings the hosts send (3 skills, skill-search installed)', () => {
  const stubs: RecordingServer[] = [];
  const claudeHome = installedHomes('claude-code');
  const codexHome = installedHomes('codex');
  beforeAll(() => mkdirSync(FIXTURES_DIR, { recursive: true }));
  afterAll(async () => {
    for (const stub of stubs) await stub.close();
  });

  it('Claude Code: its skill listing (a system message) reads as test/hosts/fixtures/claude-code-skill-listing.txt', async () => {
    const stub = await startAnthropicStub();
    stubs.push(stub);
    const made = await claudeHome();
    const turn = await promptClaude(made, bins.claude!, stub, OFF_TOPIC);
    const swap = placeholders(made.home, stub.url);
    fixture('claude-code-messages-request.json', json(mapStrings(turn.request, swap)));
    const listing = claudeSkillListing(turn.request);
    expect(listing).toBeDefined();
    const text = `${swap(listing!)}\n`;
    for (const skill of SKILLS) expect(text).toContain(`- ${skill.name}: ${skill.description}\n`);
    expect(text).toBe(fixture('claude-code-skill-listing.txt', text));
  });

  it('Codex: its skills section (a developer message) reads as test/hosts/fixtures/codex-skills-section.txt', async () => {
    const stub = await startOpenAiStub();
    stubs.push(stub);
    const made = await codexHome();
    const turn = await promptCodex(made, bins.codex!, stub, OFF_TOPIC);
    const swap = placeholders(made.home, stub.url);
    fixture('codex-responses-request.json', json(mapStrings(turn.request, swap)));
    const section = codexSkillsSection(turn.request);
    expect(section).toBeDefined();
    const text = `${swap(section!)}\n`;
    for (const skill of SKILLS) expect(text).toContain(`- ${skill.name}: ${skill.description} (file: `);
    expect(text).toBe(fixture('codex-skills-section.txt', text));
  });
});
