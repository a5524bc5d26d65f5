import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BROKEN, ROOT, SKILLS, TOOLS, removeDir, runCli, spawnCli, tempDir } from './helpers.js';

const cache = tempDir();
afterAll(() => removeDir(cache));

const LISTING = `<system-reminder>
The following skills are available for use with the Skill tool:

- flaky-tests: Diagnose intermittently failing (flaky) tests in a CI pipeline - when a test passes locally but fails sometimes in CI
- git-bisect: Track down the commit that introduced a regression using git bisect - when something used to work and a recent commit broke it
- image-resize: Resize, crop and convert images in bulk (PNG, JPEG, WebP thumbnails) - when asked to make thumbnails or shrink pictures for the web
- pdf-forms: Fill in, flatten and extract the fields of PDF forms - when a task involves a PDF form, AcroForm fields or a fillable PDF document
- release-notes: Draft release notes and a changelog entry from merged pull requests
- sql-migrations: Write reversible database schema migrations for PostgreSQL - when adding a column, table or index to a production database
</system-reminder>
`;
/** Claude Code appends only `when_to_use`; these fixtures write the camelCase `whenToUse`, which it does not read. */
const CLAUDE_CODE_LISTING = LISTING.replace(/ - when [^\n]*/g, '');

const BIN = path.join(ROOT, 'bin', 'skill-search.js');

describe.skipIf(!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js')))('list: what could not be loaded, counted by kind (built)', () => {
  it('skill files and tools-file lines are counted apart, each under its own name', async () => {
    const tools = path.join(cache, 'bad-tools.jsonl');
    writeFileSync(tools, '{"id":"ok","description":"Fine"}\nnot json\n{"id":"no-description"}\n');
    const both = await spawnCli(['list', '--skills-dir', BROKEN, '--tools', tools], cache, { entry: BIN });
    expect(both.code).toBe(0);
    expect(both.stderr).toBe('skill-search: 1 skill file and 2 tools-file lines could not be loaded; run `skill-search validate`\n');
    const linesOnly = await spawnCli(['list', '--skills-dir', SKILLS, '--tools', tools], cache, { entry: BIN });
    expect(linesOnly.stderr).toBe('skill-search: 2 tools-file lines could not be loaded; run `skill-search validate`\n');
  });
});

describe('list', () => {
  it('prints the skill_listing exactly as the model sees it', async () => {
    const result = await runCli(['list', '--skills-dir', SKILLS], cache);
    expect(result).toEqual({ code: 0, stdout: LISTING, stderr: '' });
  });

  it('adds --tools lines after the skills of the folders', async () => {
    const { stdout } = await runCli(['list', '--skills-dir', SKILLS, '--tools', TOOLS], cache);
    expect(stdout.split('\n').slice(-5)).toEqual([
      '- current-weather: Current temperature and conditions for a city',
      "- currency-convert: Convert an amount between two currencies at today's exchange rate",
      '- timezone-lookup: Local time and time zone for a place - when the user asks what time it is somewhere',
      '</system-reminder>',
      '',
    ]);
  });

  it('--context-window shrinks the budget: least-used descriptions go first, with a note', async () => {
    // 1% of 10,000 tokens at 4 characters per token = 400 characters.
    const { code, stdout } = await runCli(['list', '--skills-dir', SKILLS, '--context-window', '10000'], cache);
    expect(code).toBe(0);
    expect(stdout.split('\n').slice(5, 10)).toEqual([
      '- image-resize',
      '- pdf-forms',
      '- release-notes',
      '- sql-migrations',
      '(4 skill descriptions omitted to fit the listing budget)',
    ]);
  });

  it('--experimental keeps only bundled and MCP skills', async () => {
    const result = await runCli(['list', '--skills-dir', SKILLS, '--experimental'], cache);
    expect(result).toEqual({ code: 0, stdout: '', stderr: 'skill-search: no bundled or MCP skills to list (--experimental)\n' });
  });

  it('EXPERIMENTAL_SKILL_SEARCH=1 narrows like --experimental', async () => {
    const result = await runCli(['list', '--skills-dir', SKILLS], cache, { env: { EXPERIMENTAL_SKILL_SEARCH: '1' } });
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--experimental');
  });

  it('with default sources, lists project skills of --cwd and bundled skills; --experimental drops the project ones', async () => {
    const project = tempDir();
    try {
      mkdirSync(path.join(project, '.claude', 'skills', 'deploy-notes'), { recursive: true });
      writeFileSync(path.join(project, '.claude', 'skills', 'deploy-notes', 'SKILL.md'), '---\ndescription: How this project is deployed\n---\nSteps.\n');
      const all = await runCli(['list', '--cwd', project], cache);
      expect(all.code).toBe(0);
      expect(all.stdout).toContain('- deploy-notes: How this project is deployed\n');
      const narrowed = await runCli(['list', '--cwd', project, '--experimental', '--json'], cache);
      const parsed = JSON.parse(narrowed.stdout) as { skills: { name: string; source: string }[] };
      expect(parsed.skills.map((s) => s.name)).not.toContain('deploy-notes');
      expect(new Set(parsed.skills.map((s) => s.source))).toEqual(new Set(parsed.skills.length > 0 ? ['bundled'] : []));
    } finally {
      removeDir(project);
    }
  });

  it('leaves out a skill a host rule keeps from the model; --all names it with the rule', async () => {
    const dir = tempDir();
    try {
      for (const [name, frontmatter] of [
        ['deploy-staging', 'description: Deploy to staging\ndisable-model-invocation: true'],
        ['release', 'description: Cut a release'],
        ['lint', 'description: Lint the code'],
      ]) {
        mkdirSync(path.join(dir, name!));
        writeFileSync(path.join(dir, name!, 'SKILL.md'), `---\n${frontmatter}\n---\n`);
      }
      mkdirSync(path.join(dir, 'release', 'agents'));
      writeFileSync(path.join(dir, 'release', 'agents', 'openai.yaml'), 'policy:\n  allow_implicit_invocation: false\n');
      const plain = await runCli(['list', '--skills-dir', dir], cache);
      expect(plain.stdout).toBe(
        '<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n- lint: Lint the code\n</system-reminder>\n',
      );
      const all = await runCli(['list', '--skills-dir', dir, '--all'], cache);
      expect(all.stdout.split('\n').slice(5)).toEqual([
        '',
        'Host rules (2):',
        `- deploy-staging: never offered to the model; invoked by its name only (disable-model-invocation: true) [${path.join(dir, 'deploy-staging', 'SKILL.md')}]`,
        `- release: never offered to the model; invoked by its name only (agents/openai.yaml: policy.allow_implicit_invocation: false) [${path.join(dir, 'release', 'SKILL.md')}]`,
        '',
      ]);
      const json = JSON.parse((await runCli(['list', '--skills-dir', dir, '--json'], cache)).stdout) as { skills: { name: string }[] };
      expect(json.skills.map((skill) => skill.name)).toEqual(['lint']);
      const tokens = JSON.parse((await runCli(['tokens', '--skills-dir', dir, '--json'], cache)).stdout) as { before: { skills: number } };
      expect(tokens.before.skills).toBe(1);
    } finally {
      removeDir(dir);
    }
  });

  it('reports shadowed names on stderr, keeping stdout the listing', async () => {
    const other = tempDir();
    try {
      mkdirSync(path.join(other, 'git-bisect'));
      writeFileSync(path.join(other, 'git-bisect', 'SKILL.md'), '---\ndescription: A second bisect skill\n---\n');
      const result = await runCli(['list', '--skills-dir', SKILLS, '--skills-dir', other], cache);
      expect(result.stdout).toBe(LISTING);
      expect(result.stderr).toBe(
        `skill-search: duplicate skill "git-bisect": ${path.join(SKILLS, 'git-bisect', 'SKILL.md')} shadows ${path.join(other, 'git-bisect', 'SKILL.md')}\n`,
      );
    } finally {
      removeDir(other);
    }
  });

  it('--json gives the listing and the skills as data', async () => {
    const result = await runCli(['list', '--skills-dir', SKILLS, '--json'], cache);
    const parsed = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['experimental', 'budgetChars', 'skills', 'shortened', 'truncated', 'omitted', 'shadowed', 'ruled', 'content']);
    expect(parsed.budgetChars).toBe(8000);
    expect((parsed.skills as { name: string }[]).map((s) => s.name)).toEqual([
      'flaky-tests',
      'git-bisect',
      'image-resize',
      'pdf-forms',
      'release-notes',
      'sql-migrations',
    ]);
    expect(LISTING).toContain(parsed.content as string);
  });
});

describe('list --host', () => {
  it('claude-code: the listing Claude Code sends (no camelCase whenToUse, no seed cut), in its reminder', async () => {
    const { code, stdout } = await runCli(['list', '--skills-dir', SKILLS, '--host', 'claude-code'], cache);
    expect(code).toBe(0);
    expect(stdout).toBe(CLAUDE_CODE_LISTING);
  });

  it("codex: Codex's skills section, paths shortened through its roots table", async () => {
    const { code, stdout } = await runCli(['list', '--skills-dir', SKILLS, '--host', 'codex'], cache);
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines.slice(0, 2)).toEqual(['<skills_instructions>', '## Skills']);
    expect(lines).toContain(`- \`r0\` = \`${SKILLS}\``);
    expect(lines).toContain('- release-notes: Draft release notes and a changelog entry from merged pull requests (file: r0/release-notes/SKILL.md)');
  });

  it('each host lists the copy in its own folders when a name is in both ~/.claude/skills and ~/.agents/skills', async () => {
    const home = tempDir();
    try {
      const write = (dir: string, name: string, description: string): void => {
        mkdirSync(path.join(home, dir, name), { recursive: true });
        writeFileSync(path.join(home, dir, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\n`);
      };
      write('.claude/skills', 'both', 'Claude copy');
      write('.agents/skills', 'both', 'Codex copy');
      write('.agents/skills', 'codex-only', 'Only in the Codex folder');
      const cwd = path.join(home, 'project');
      mkdirSync(cwd);
      const env = { HOME: home };
      const codex = await runCli(['list', '--host', 'codex', '--json'], cache, { env, cwd });
      const codexListing = JSON.parse(codex.stdout) as { listed: string[]; text: string };
      expect(codexListing.listed).toEqual(['both', 'codex-only']);
      expect(codexListing.text).toContain('- both: Codex copy (file: r0/both/SKILL.md)');
      expect(codexListing.text).not.toContain('Claude copy');
      const claude = await runCli(['list', '--host', 'claude-code', '--json'], cache, { env, cwd });
      const claudeListing = JSON.parse(claude.stdout) as { listed: string[]; text: string };
      expect(claudeListing.listed).toEqual(['both']);
      expect(claudeListing.text).toBe('- both: Claude copy');
    } finally {
      removeDir(home);
    }
  });

  it('claude-code names a folder’s SKILL.md by its folder, as Claude Code 2.1 lists it, its frontmatter name beside it (2.1.337) for the first going by it', async () => {
    const home = tempDir();
    try {
      const write = (folder: string, name: string, description: string): void => {
        mkdirSync(path.join(home, '.claude/skills', folder), { recursive: true });
        writeFileSync(path.join(home, '.claude/skills', folder, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\n`);
      };
      write('react-best-practices', 'vercel-react-best-practices', 'React performance rules');
      write('compose-a', 'compose', 'Docker compose files');
      write('compose-b', 'compose', 'Docker swarm stacks');
      const cwd = path.join(home, 'project');
      mkdirSync(cwd);
      const { stdout } = await runCli(['list', '--host', 'claude-code', '--json'], cache, { env: { HOME: home }, cwd });
      const listing = JSON.parse(stdout) as { listed: string[]; text: string };
      expect(listing.listed).toEqual(['compose-a', 'compose-b', 'react-best-practices']);
      expect(listing.text).toBe(
        '- compose-a (compose): Docker compose files\n- compose-b: Docker swarm stacks\n- react-best-practices (vercel-react-best-practices): React performance rules',
      );
    } finally {
      removeDir(home);
    }
  });

  it('codex keeps same-named skills of different folders apart and lists a file reached twice through a link once', async () => {
    const home = tempDir();
    try {
      const write = (dir: string, description: string): void => {
        mkdirSync(path.join(home, dir), { recursive: true });
        writeFileSync(path.join(home, dir, 'SKILL.md'), `---\nname: same\ndescription: ${description}\n---\n`);
      };
      write('.agents/skills/same', 'User copy');
      write('project/.agents/skills/same', 'Repo copy');
      mkdirSync(path.join(home, '.codex/skills'), { recursive: true });
      symlinkSync(path.join(home, '.agents/skills/same'), path.join(home, '.codex/skills/same'));
      const { stdout } = await runCli(['list', '--host', 'codex', '--json'], cache, { env: { HOME: home }, cwd: path.join(home, 'project') });
      const listing = JSON.parse(stdout) as { listed: string[]; text: string };
      expect(listing.listed).toEqual(['same', 'same']);
      expect(listing.text.match(/- same: (User|Repo) copy/g)?.sort()).toEqual(['- same: Repo copy', '- same: User copy']);
    } finally {
      removeDir(home);
    }
  });

  it('refuses an unknown host in one line', async () => {
    const { code, stderr } = await runCli(['list', '--skills-dir', SKILLS, '--host', 'vim'], cache);
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('--host');
  });
});

describe('tokens --host', () => {
  it("measures the listing by that host's rules when --host is given, by the seed's otherwise", async () => {
    const dir = tempDir();
    try {
      mkdirSync(path.join(dir, 'long'));
      // 600 characters: the seed cuts the line at 250, Claude Code keeps it whole (up to 1,536).
      writeFileSync(path.join(dir, 'long', 'SKILL.md'), `---\ndescription: ${'word '.repeat(120).trim()}\n---\n`);
      const seed = JSON.parse((await runCli(['tokens', '--skills-dir', dir, '--json'], cache)).stdout) as { before: { listingTokens: number } };
      const host = JSON.parse((await runCli(['tokens', '--skills-dir', dir, '--host', 'claude-code', '--json'], cache)).stdout) as {
        before: { listingTokens: number };
        budgetChars: number;
      };
      expect(seed.before.listingTokens).toBe(Math.ceil('- long: '.concat('x'.repeat(250)).length / 4));
      expect(host.before.listingTokens).toBe(Math.ceil(`- long: ${'word '.repeat(120).trim()}`.length / 4));
      // Claude Code's default model: 1% of 1M tokens at 3 characters a token.
      expect(host.budgetChars).toBe(30_000);
    } finally {
      removeDir(dir);
    }
  });
});
