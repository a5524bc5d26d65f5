import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runClaudeCodeHook } from '../../src/integrations/claude-code-hook.js';
import { hostShadowing, loadInstructions } from '../../src/integrations/hosts.js';
import type { SkillService } from '../../src/integrations/service.js';
import type { LoadedFrom, SearchHit, Skill } from '../../src/types.js';
import { ROOT, removeDir, runCli, tempDir } from '../cli/helpers.js';

function skill(name: string, source: LoadedFrom, description: string): Skill {
  return {
    name,
    description,
    source,
    rank: 5,
    path: `/${source}/${name}/SKILL.md`,
    id: name,
    body: `# ${name}`,
    tokenEstimate: 10,
    contentHash: name,
  };
}

const PROMPT = JSON.stringify({ hook_event_name: 'UserPromptSubmit', cwd: '/p', prompt: 'turn this spreadsheet into a pdf report' });

function stub(hits: SearchHit[]): SkillService {
  return { search: async () => hits, skills: async () => hits.map((hit) => hit.skill), close: async () => undefined };
}

async function context(hits: SearchHit[], extra: { host?: 'claude-code' | 'codex'; keepDemo?: boolean } = {}) {
  const result = await runClaudeCodeHook(PROMPT, {
    open: async () => stub(hits),
    k: 3,
    timeoutMs: 2000,
    log: () => undefined,
    ...extra,
  });
  if (result.stdout === '') return '';
  return (JSON.parse(result.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
}

const HITS: SearchHit[] = [
  { skill: skill('xlsx', 'library', 'Read and write spreadsheets'), score: 0.9, via: ['lexical'] },
  { skill: skill('pdf', 'demo', 'Make PDF files'), score: 0.85, via: ['lexical'] },
  { skill: skill('report', 'skills', 'Write reports'), score: 0.8, via: ['lexical'] },
];

describe('hook output for a host', () => {
  it('drops demo skills, and tells how to load the skills Claude Code does not list', async () => {
    expect(await context(HITS)).toBe(
      [
        'Skills relevant to your task:',
        '',
        '- xlsx: Read and write spreadsheets',
        '- report: Write reports',
        '',
        'Not in your skill list; to use one, read its SKILL.md file below and follow it (or call the skill-search MCP tool read_skill with its name):',
        '- xlsx: /library/xlsx/SKILL.md',
      ].join('\n'),
    );
  });

  it('keeps demo skills with keepDemo; for Codex, Claude Code folders are not native either', async () => {
    const text = await context(HITS, { host: 'codex', keepDemo: true });
    expect(text.split('\n').slice(-4)).toEqual([
      'Not in your skill list; to use one, read its SKILL.md file below and follow it (or call the skill-search MCP tool read_skill with its name):',
      '- xlsx: /library/xlsx/SKILL.md',
      '- pdf: /demo/pdf/SKILL.md',
      '- report: /skills/report/SKILL.md',
    ]);
  });

  it('adds nothing when every suggestion is native', () => {
    expect(loadInstructions('claude-code', [{ name: 'a', path: '/a', source: 'plugin' }])).toBeUndefined();
    expect(loadInstructions('codex', [{ name: 'a', path: '/a', source: 'codex' }])).toBeUndefined();
  });
});

describe('the demo catalogue never reaches a host once a user skill exists (CLI, fresh HOME)', () => {
  let home: string;
  beforeEach(() => {
    home = tempDir();
  });
  afterEach(() => removeDir(home));

  const writeSkill = (dir: string, name: string, description: string) => {
    mkdirSync(path.join(dir, name), { recursive: true });
    writeFileSync(path.join(dir, name, 'SKILL.md'), `---\ndescription: ${description}\n---\nSteps.\n`);
  };

  it('query falls back to the demo skills on an empty HOME; hook and mcp-facing output do not', async () => {
    const project = path.join(home, 'project');
    mkdirSync(project, { recursive: true });
    const prompt = JSON.stringify({ hook_event_name: 'UserPromptSubmit', cwd: project, prompt: 'extract the text and tables from a PDF' });

    const onlyDemo = await runCli(['query', '--cwd', project, '--model', 'hash', '--json', 'extract text and tables from a pdf'], home);
    expect((JSON.parse(onlyDemo.stdout) as { hits: { source: string }[] }).hits.every((hit) => hit.source === 'demo')).toBe(true);
    const hookOnlyDemo = await runCli(['hook', 'claude-code', '--model', 'hash', '--mode', 'lexical'], home, { stdin: prompt });
    expect(hookOnlyDemo.stdout).toBe('');

    writeSkill(path.join(home, '.claude', 'skills'), 'pdf-tables', 'Extract the text and tables from PDF files');
    const hook = await runCli(['hook', 'claude-code', '--model', 'hash', '--mode', 'lexical'], home, { stdin: prompt });
    expect(hook.stdout).toContain('pdf-tables');
    expect(hook.stdout).not.toMatch(/examples[\\/]skills/);
    // Only an explicit --demo brings them back (announced with their path, as the host does not list them).
    const withDemo = await runCli(['hook', 'claude-code', '--model', 'hash', '--mode', 'lexical', '--demo'], home, { stdin: prompt });
    expect(withDemo.stdout).toMatch(/examples[\\/]skills[\\/]pdf[\\/]SKILL\.md/);
    const list = await runCli(['list', '--cwd', project, '--json'], home);
    expect((JSON.parse(list.stdout) as { skills: { source: string }[] }).skills.map((s) => s.source)).toEqual(['skills']);
  });
});

describe('a suggestion the host lists itself gets no path (CLI, fresh HOME)', () => {
  let home: string;
  beforeEach(() => {
    home = tempDir();
  });
  afterEach(() => removeDir(home));

  it('Codex: a skill in ~/.agents/skills linked into ~/.claude/skills is in its list; a Claude Code-only one is not', async () => {
    const project = path.join(home, 'project');
    mkdirSync(project, { recursive: true });
    const write = (dir: string, name: string, description: string) => {
      mkdirSync(path.join(dir, name), { recursive: true });
      writeFileSync(path.join(dir, name, 'SKILL.md'), `---\ndescription: ${description}\n---\nSteps.\n`);
    };
    write(path.join(home, '.agents', 'skills'), 'kafka-rebalance', 'Rebalance Kafka partitions and consumer groups');
    mkdirSync(path.join(home, '.claude', 'skills'), { recursive: true });
    symlinkSync(path.join(home, '.agents', 'skills', 'kafka-rebalance'), path.join(home, '.claude', 'skills', 'kafka-rebalance'));
    write(path.join(home, '.claude', 'skills'), 'kafka-topics', 'Create and configure Kafka topics and partitions');
    const prompt = JSON.stringify({ hook_event_name: 'UserPromptSubmit', cwd: project, prompt: 'rebalance the kafka partitions and topics' });
    const hook = await runCli(['hook', 'codex', '--model', 'hash', '--mode', 'lexical', '--abstain', 'off'], home, { stdin: prompt });
    const context = (JSON.parse(hook.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    expect(context).toContain('- kafka-rebalance: Rebalance Kafka partitions');
    expect(context).toContain('- kafka-topics: Create and configure Kafka topics');
    expect(context.split('Not in your skill list')[1]?.split('\n').slice(1)).toEqual([
      `- kafka-topics: ${path.join(home, '.claude', 'skills', 'kafka-topics', 'SKILL.md')}`,
    ]);
  });

  it('Claude Code: a SKILL.md of more than 1,000,000 bytes in ~/.claude/skills is not in its list (test/hosts/list-host), so it gets its path', async () => {
    const project = path.join(home, 'project');
    mkdirSync(project, { recursive: true });
    const write = (name: string, description: string, bytes: number) => {
      const head = `---\ndescription: ${description}\n---\n`;
      mkdirSync(path.join(home, '.claude', 'skills', name), { recursive: true });
      writeFileSync(path.join(home, '.claude', 'skills', name, 'SKILL.md'), head + 'x'.repeat(bytes - head.length));
    };
    write('kafka-rebalance', 'Rebalance Kafka partitions and consumer groups', 1_000_001);
    write('kafka-topics', 'Create and configure Kafka topics and partitions', 1_000_000);
    const prompt = JSON.stringify({ hook_event_name: 'UserPromptSubmit', cwd: project, prompt: 'rebalance the kafka partitions and topics' });
    const hook = await runCli(['hook', 'claude-code', '--model', 'hash', '--mode', 'lexical', '--abstain', 'off'], home, { stdin: prompt });
    const context = (JSON.parse(hook.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    expect(context).toContain('- kafka-topics: Create and configure Kafka topics');
    expect(context.split('Not in your skill list')[1]?.split('\n').slice(1)).toEqual([
      `- kafka-rebalance: ${path.join(home, '.claude', 'skills', 'kafka-rebalance', 'SKILL.md')}`,
    ]);
  });
});

describe('hostShadowing', () => {
  it("drops a hit from a source the host does not scan named as one of the host's own; the host's own sources keep theirs", async () => {
    const hits: SearchHit[] = [
      { skill: skill('skill-creator', 'library', 'Ours'), score: 0.9, via: ['lexical'] },
      { skill: { ...skill('skill-creator', 'codex', 'The user’s own'), id: 'skill-creator@codex' }, score: 0.8, via: ['lexical'] },
      { skill: skill('skill-lint', 'library', 'Lint skills'), score: 0.7, via: ['lexical'] },
    ];
    const searcher = hostShadowing(stub(hits), 'codex', new Set(['skill-creator']));
    expect((await searcher.search('make a skill')).map((hit) => `${hit.skill.name}@${hit.skill.source}`)).toEqual([
      'skill-creator@codex',
      'skill-lint@library',
    ]);
  });
});

describe("a skill named as one of Codex's own skills (CLI, fresh HOME)", () => {
  let home: string;
  beforeEach(() => {
    home = tempDir();
  });
  afterEach(() => removeDir(home));

  it('is not suggested in Codex, which lists its own by that name; Claude Code still gets it', async () => {
    const project = path.join(home, 'project');
    mkdirSync(project, { recursive: true });
    const write = (dir: string, name: string, description: string) => {
      mkdirSync(path.join(dir, name), { recursive: true });
      writeFileSync(path.join(dir, name, 'SKILL.md'), `---\ndescription: ${description}\n---\nSteps.\n`);
    };
    const system = path.join(home, '.codex', 'skills', '.system');
    write(system, 'skill-creator', 'Codex: create or update a skill');
    // Codex keeps a marker file beside its skills.
    writeFileSync(path.join(system, '.codex-system-skills.marker'), 'x');
    const library = path.join(home, '.config', 'skill-search', 'library');
    write(library, 'skill-creator', 'Create a new agent skill: its SKILL.md and frontmatter');
    write(library, 'skill-lint', 'Lint the frontmatter of an agent skill SKILL.md');
    const hook = async (host: string, prompt: string, flags = ['--mode', 'lexical', '--abstain', 'off']) => {
      const input = JSON.stringify({ hook_event_name: 'UserPromptSubmit', cwd: project, prompt });
      const result = await runCli(['hook', host, '--model', 'hash', ...flags], home, { stdin: input });
      expect(result.stderr).toBe('');
      return result.stdout === ''
        ? ''
        : (JSON.parse(result.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    };
    const prompt = 'create a new agent skill and lint its SKILL.md frontmatter';
    const codex = await hook('codex', prompt);
    expect(codex).toContain('- skill-lint: Lint the frontmatter');
    expect(codex).not.toContain('skill-creator');
    expect(await hook('claude-code', prompt)).toContain('- skill-creator: Create a new agent skill');
    // Named (hybrid search, abstention on): Codex's own skill-creator is the one meant; nothing of ours is suggested.
    expect(await hook('codex', 'use the skill-creator skill', [])).toBe('');
    expect(await hook('claude-code', 'use the skill-creator skill', [])).toContain('- skill-creator: Create a new agent skill');
    // validate and list --all say so.
    const note = `${path.join(library, 'skill-creator', 'SKILL.md')}: skill-creator is not suggested in Codex, which lists its own skill of this name (in its skills/.system)`;
    expect((await runCli(['validate', '--cwd', project], home)).stdout).toContain(`skill-search: ${note}\n`);
    const all = (await runCli(['list', '--all', '--cwd', project], home)).stdout;
    expect(all).toContain('- skill-creator: not suggested in Codex, which lists its own skill of this name (in its skills/.system) [');
    expect(all).not.toContain('- skill-lint: not suggested');
  });
});

describe('the MCP server never serves demo skills', () => {
  let home: string;
  beforeEach(() => {
    home = tempDir();
  });
  afterEach(() => removeDir(home));

  it('neither searched nor readable, with or without a user skill', async () => {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const project = path.join(home, 'project');
    mkdirSync(project);
    const ask = async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'mcp', '--cwd', project, '--model', 'hash', '--mode', 'lexical'],
        cwd: ROOT,
        env: { ...(process.env as Record<string, string>), HOME: home, SKILL_SEARCH_CACHE_DIR: home },
        stderr: 'pipe',
      });
      const client = new Client({ name: 'test', version: '0.0.0' });
      await client.connect(transport);
      try {
        const search = await client.callTool({ name: 'search_skills', arguments: { query: 'extract text and tables from a pdf', k: 10 } });
        const read = await client.callTool({ name: 'read_skill', arguments: { name: 'commit-message' } });
        return { search, read };
      } finally {
        await client.close();
      }
    };
    // An empty HOME: `query` would fall back to the demo catalogue; the MCP server does not.
    const empty = await ask();
    expect(JSON.stringify(empty.search)).not.toMatch(/"source":"demo"|examples\/skills/);
    expect(empty.read.isError).toBe(true);

    mkdirSync(path.join(home, '.claude', 'skills', 'pdf-tables'), { recursive: true });
    writeFileSync(
      path.join(home, '.claude', 'skills', 'pdf-tables', 'SKILL.md'),
      '---\ndescription: Extract the text and tables from PDF files\n---\nSteps.\n',
    );
    const withSkill = await ask();
    expect((withSkill.search.structuredContent as { hits: { name: string; source: string }[] }).hits.map((hit) => [hit.name, hit.source])).toEqual([
      ['pdf-tables', 'skills'],
    ]);
    expect(withSkill.read.isError).toBe(true);
  }, 60_000);
});
