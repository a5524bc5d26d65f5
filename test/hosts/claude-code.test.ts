/**
 * The real Claude Code CLI (pinned, see scripts/hosts/install-hosts.ts) with `skill-search install
 * claude-code` in a fresh HOME, run headless against the Messages stub: what the model receives.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { STUB_REPLY, messagesRequests, startAnthropicStub } from './support/anthropic-stub.js';
import { type MessagesBody, claudeEnv, claudeHookContext, claudeSkillListing, claudeTurnHookContext, messageTexts, promptClaude } from './support/claude.js';
import { CLI_BIN, type HostHome, installedHomes } from './support/host-home.js';
import type { RecordingServer } from './support/recording-server.js';
import {
  CSV_PROMPT,
  CSV_SUGGESTION,
  DEPLOY,
  DEPLOY_PROMPT,
  INVOICE_PROMPT,
  LABELS_PROMPT,
  MATCHING,
  MATCHING_SUGGESTION,
  NAMED_PROMPT,
  OFF_TOPIC,
  RENAMED,
  RENAMED_PROMPT,
  SKILLS,
  UNDESCRIBED,
} from './support/skills.js';

/**
 * `claude -p` sends its first request without waiting for MCP servers to connect; on a loaded machine ours is not
 * connected yet and the model is offered no tool of ours (docs/hosts.md, "MCP tools missing under load"). These
 * tests are about our server, so they ask Claude Code to wait for it.
 */
const WAIT_FOR_MCP = { MCP_CONNECTION_NONBLOCKING: 'false' };

/** Claude Code 2.1.337 defers MCP tools: the model loads one's schema with ToolSearch (`select:<name>`) before it can call it. */
const LOAD_SEARCH_SKILLS = { name: 'ToolSearch', input: { query: 'select:mcp__skill-search__search_skills' } };

/** Marks the project folder trusted in `~/.claude.json`, as accepting Claude Code's trust prompt there does. */
function trustProject(home: HostHome): void {
  const file = path.join(home.home, '.claude.json');
  const config = JSON.parse(readFileSync(file, 'utf8'));
  config.projects = { ...config.projects, [home.project]: { ...config.projects?.[home.project], hasTrustDialogAccepted: true } };
  writeFileSync(file, JSON.stringify(config, null, 2));
}

const bin = inject('hostBins').claude;

describe.skipIf(bin === undefined)('Claude Code 2.1.337 with skill-search installed', () => {
  let stub: RecordingServer;
  let home: HostHome;
  const freshHome = installedHomes('claude-code');

  beforeAll(async () => {
    stub = await startAnthropicStub();
    home = await freshHome();
  });
  afterAll(() => stub.close());

  it('install points the hook and the MCP server at this repo’s bin', () => {
    const settings = JSON.parse(readFileSync(path.join(home.home, '.claude', 'settings.json'), 'utf8'));
    expect(settings.hooks.UserPromptSubmit[0].hooks[0].command).toBe(`node ${CLI_BIN} hook claude-code`);
    expect(JSON.parse(readFileSync(path.join(home.home, '.claude.json'), 'utf8')).mcpServers['skill-search']).toMatchObject({ args: [CLI_BIN, 'mcp'] });
  });

  it('a matching prompt: our suggestion reaches the model', async () => {
    const turn = await promptClaude(home, bin!, stub, MATCHING);
    expect(turn.result.code).toBe(0);
    expect(turn.result.stdout.trim()).toBe(STUB_REPLY);
    const context = claudeHookContext(turn.request);
    expect(context).toBeDefined();
    expect(context).toContain('Skills relevant to your task:');
    expect(context).toContain(MATCHING_SUGGESTION);
    expect(context).not.toContain('release-notes');
  });

  it('a prompt that names a skill: only that skill is suggested', async () => {
    const turn = await promptClaude(home, bin!, stub, NAMED_PROMPT);
    const context = claudeTurnHookContext(turn.request, NAMED_PROMPT) ?? '(no hook output reached the model)';
    expect(context).toContain(CSV_SUGGESTION);
    expect(context).not.toContain('pdf-tables');
  });

  it('one suggestion per session: --continue gets no repeat, a new session does', async () => {
    const first = await promptClaude(home, bin!, stub, MATCHING);
    expect(claudeTurnHookContext(first.request, MATCHING)).toContain(MATCHING_SUGGESTION);

    // The same prompt again in that session: the model already has the suggestion.
    const again = await promptClaude(home, bin!, stub, MATCHING, ['--continue']);
    expect(again.result.code).toBe(0);
    expect(again.request.messages.filter((message) => message.role === 'assistant').length).toBeGreaterThan(0);
    expect(claudeTurnHookContext(again.request, MATCHING)).toBeUndefined();

    // The hook still runs in the resumed session: another topic is suggested, the first is not repeated.
    const other = await promptClaude(home, bin!, stub, CSV_PROMPT, ['--continue']);
    const otherContext = claudeTurnHookContext(other.request, CSV_PROMPT);
    expect(otherContext).toContain(CSV_SUGGESTION);
    expect(otherContext).not.toContain('pdf-tables');

    const fresh = await promptClaude(home, bin!, stub, MATCHING);
    expect(fresh.request.messages.filter((message) => message.role === 'assistant')).toEqual([]);
    expect(claudeTurnHookContext(fresh.request, MATCHING)).toContain(MATCHING_SUGGESTION);
  });

  it('the first prompt in a fresh HOME, before any index exists: our suggestion reaches the model', async () => {
    const own = await freshHome(SKILLS, { index: false });
    const turn = await promptClaude(own, bin!, stub, MATCHING);
    expect(turn.result.code).toBe(0);
    expect(claudeHookContext(turn.request)).toContain(MATCHING_SUGGESTION);
  });

  it('/<skill> runs the skill in Claude Code itself: the model gets its body and no suggestion of it, then or later in the session', async () => {
    const own = await freshHome();
    const before = stub.requests.length;
    const result = await own.run(bin!, ['-p', `/pdf-tables ${MATCHING}`], claudeEnv(stub));
    expect(result.code).toBe(0);
    const request = messagesRequests({ ...stub, requests: stub.requests.slice(before) })
      .map((recorded) => recorded.body as MessagesBody)
      .find((body) => messageTexts(body).some((text) => text.includes('<command-name>/pdf-tables</command-name>')));
    expect(request).toBeDefined();
    expect(messageTexts(request!).join('\n')).toContain('Follow these steps.');
    expect(claudeHookContext(request!) ?? '').not.toContain('pdf-tables');

    const later = await promptClaude(own, bin!, stub, MATCHING, ['--continue']);
    expect(later.request.messages.filter((message) => message.role === 'assistant').length).toBeGreaterThan(0);
    expect(claudeTurnHookContext(later.request, MATCHING) ?? '').not.toContain('pdf-tables');
  });

  it('an off-topic prompt: nothing from the hook reaches the model', async () => {
    const turn = await promptClaude(home, bin!, stub, OFF_TOPIC);
    expect(turn.result.code).toBe(0);
    expect(claudeHookContext(turn.request)).toBeUndefined();
    expect(JSON.stringify(turn.request)).not.toContain('Skills relevant to your task');
  });

  it('claude mcp list shows our server connected in a trusted folder, and the model is offered its tools to load', async () => {
    // In a folder not yet trusted it checks no server (the user is told to run `claude` there first).
    const untrusted = await home.run(bin!, ['mcp', 'list'], claudeEnv(stub));
    expect(untrusted.code).toBe(0);
    expect(untrusted.stdout).toContain(`skill-search: node ${CLI_BIN} mcp - - Not checked (folder not trusted; run \`claude\` here)`);
    trustProject(home);
    const list = await home.run(bin!, ['mcp', 'list'], claudeEnv(stub));
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`skill-search: node ${CLI_BIN} mcp - ✔ Connected`);
    const turn = await promptClaude(home, bin!, stub, OFF_TOPIC, [], WAIT_FOR_MCP);
    // Deferred: named in a system message, with ToolSearch among the tools to load them by.
    expect((turn.request.tools ?? []).map((tool) => tool.name)).toContain('ToolSearch');
    const deferred = messageTexts(turn.request).find((text) => text.includes('available via ToolSearch'));
    expect(deferred?.split('\n')).toEqual(expect.arrayContaining(['mcp__skill-search__search_skills', 'mcp__skill-search__read_skill']));
  });

  it('the model loads and calls search_skills: it gets the hits as JSON (structuredContent), with no scoring internals', async () => {
    const calling = await startAnthropicStub(LOAD_SEARCH_SKILLS, { name: 'mcp__skill-search__search_skills', input: { query: MATCHING } });
    try {
      const turn = await promptClaude(home, bin!, calling, OFF_TOPIC, ['--allowedTools=mcp__skill-search__search_skills'], WAIT_FOR_MCP);
      expect(turn.result.code).toBe(0);
      // Claude Code 2.1.337 sends the tool's structuredContent as the tool_result, not its text.
      const results = messagesRequests({ ...calling, requests: turn.all })
        .flatMap((recorded) => (recorded.body as MessagesBody).messages)
        .flatMap((message) => (typeof message.content === 'string' ? [] : message.content))
        .filter((block) => block.type === 'tool_result') as unknown as readonly { content: unknown }[];
      const text = results.map((result) => result.content).findLast((content) => typeof content === 'string');
      const json = JSON.parse(typeof text === 'string' ? text : '{}') as { query: string; hits: Record<string, unknown>[] };
      expect(json.query).toBe(MATCHING);
      expect(json.hits.map((hit) => hit.name)).toEqual(['pdf-tables']);
      expect(Object.keys(json.hits[0]!).sort()).toEqual(['description', 'name', 'path', 'score', 'source']);
    } finally {
      await calling.close();
    }
  });

  it('a skill with disable-model-invocation: true is never suggested to the model', async () => {
    const own = await freshHome([...SKILLS, DEPLOY]);
    const prompt = DEPLOY_PROMPT;
    const turn = await promptClaude(own, bin!, stub, prompt);
    expect(turn.result.code).toBe(0);
    // Claude Code itself leaves it out of its skill listing…
    const listing = claudeSkillListing(turn.request);
    expect(listing).toContain('- pdf-tables:');
    expect(listing).not.toContain('deploy-staging');
    // …and so must the hook.
    expect(claudeHookContext(turn.request) ?? '').not.toContain('deploy-staging');

    // The same skill without the flag is suggested for this prompt: the check above can fail.
    writeFileSync(
      path.join(own.home, '.claude', 'skills', 'deploy-staging', 'SKILL.md'),
      `---\nname: deploy-staging\ndescription: ${DEPLOY.description}\n---\nSteps.\n`,
    );
    await own.cli(['index', '--cwd', own.project]);
    const control = await promptClaude(own, bin!, stub, prompt);
    expect(claudeHookContext(control.request)).toContain('- deploy-staging: Deploy the web app to the staging servers');
    expect(claudeSkillListing(control.request)).toContain('- deploy-staging: Deploy the web app to the staging servers');
  });

  it('a SKILL.md without frontmatter, or without a description, is suggested by its first paragraph', async () => {
    const own = await freshHome([...SKILLS, ...UNDESCRIBED]);
    const [invoice, labels] = UNDESCRIBED;
    for (const [skill, prompt] of [
      [invoice!, INVOICE_PROMPT],
      [labels!, LABELS_PROMPT],
    ] as const) {
      const turn = await promptClaude(own, bin!, stub, prompt);
      expect(turn.result.code).toBe(0);
      // Claude Code lists it with that paragraph…
      expect(claudeSkillListing(turn.request)).toContain(`- ${skill.name}: ${skill.description}`);
      // …and the hook suggests it by the same text.
      expect(claudeHookContext(turn.request)).toContain(`- ${skill.name}: ${skill.description}`);
    }
  });

  it('a skill whose frontmatter names it otherwise is listed under its folder’s name with that name beside it, and suggested under the folder’s', async () => {
    const own = await freshHome([...SKILLS, RENAMED]);
    const turn = await promptClaude(own, bin!, stub, RENAMED_PROMPT);
    expect(turn.result.code).toBe(0);
    const listing = claudeSkillListing(turn.request);
    expect(listing).toContain(`- ${RENAMED.name} (acme-docs-translator): ${RENAMED.description}`);
    const context = claudeHookContext(turn.request);
    expect(context).toContain(`- ${RENAMED.name}: ${RENAMED.description}`);
    expect(context).not.toContain('acme-docs-translator');

    // `/<frontmatter name>` runs it too: the model gets its body, and the hook does not suggest it beside that.
    const before = stub.requests.length;
    const ran = await own.run(bin!, ['-p', `/acme-docs-translator ${RENAMED_PROMPT}`], claudeEnv(stub));
    expect(ran.code).toBe(0);
    const request = messagesRequests({ ...stub, requests: stub.requests.slice(before) })
      .map((recorded) => recorded.body as MessagesBody)
      .find((body) => messageTexts(body).some((text) => text.includes(`<command-name>/${RENAMED.name}</command-name>`)));
    expect(request).toBeDefined();
    expect(messageTexts(request!).join('\n')).toContain('Keep code blocks as they are.');
    expect(claudeHookContext(request!) ?? '').not.toContain(RENAMED.name);
  });

  it('uninstall leaves Claude Code working, with no hook and no server left', async () => {
    const own = await freshHome();
    await own.cli(['uninstall', 'claude-code']);
    const settingsFile = path.join(own.home, '.claude', 'settings.json');
    expect(existsSync(settingsFile) ? readFileSync(settingsFile, 'utf8') : '').not.toContain('skill-search');
    const turn = await promptClaude(own, bin!, stub, MATCHING);
    expect(turn.result.code).toBe(0);
    expect(turn.result.stdout.trim()).toBe(STUB_REPLY);
    expect(claudeHookContext(turn.request)).toBeUndefined();
    expect((turn.request.tools ?? []).map((tool) => tool.name).filter((name) => name.startsWith('mcp__'))).toEqual([]);
    // Nor among the deferred tools it names for ToolSearch.
    expect(JSON.stringify(turn.request)).not.toContain('mcp__skill-search');
  });
});
