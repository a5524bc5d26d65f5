import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CLAUDE_CODE_OWN_ENTRIES,
  claudeCodeBudget,
  claudeCodeListing,
  codexContextWindow,
  codexSkillsSection,
  displayWidth,
} from '../../src/attachments/host-listing.js';
import { claudeCodeFrontmatter, claudeCodeSetup, claudeCodeUsage, codexSetup } from '../../src/cli/commands/host-profile.js';
import type { Skill } from '../../src/types.js';
import { makeSkill } from './make-skill.js';

// The three skills the host tests install (test/hosts/fixtures on the harness branch).
const HOME = '/home/u';
const agents = (name: string, description: string): Skill => makeSkill(name, { description, source: 'codex', path: `${HOME}/.agents/skills/${name}/SKILL.md` });
const THREE = [
  agents('csv-clean', 'Clean, dedupe and normalise CSV spreadsheets'),
  agents('pdf-tables', 'Extract text and tables from PDF files into CSV'),
  agents('release-notes', 'Write release notes from the git log between two tags'),
];

describe('Claude Code 2.1.337', () => {
  it('lists each skill as the captured request does: description - when_to_use, a line break as a space', () => {
    const loop = makeSkill('loop', { description: 'Run a prompt on an interval', whenToUse: 'When the user wants a recurring task.\nNot for one-off tasks.' });
    const listing = claudeCodeListing([...THREE, loop]);
    expect(listing.text).toBe(
      [
        '- csv-clean: Clean, dedupe and normalise CSV spreadsheets',
        '- pdf-tables: Extract text and tables from PDF files into CSV',
        '- release-notes: Write release notes from the git log between two tags',
        '- loop: Run a prompt on an interval - When the user wants a recurring task. Not for one-off tasks.',
      ].join('\n'),
    );
    // Its default model, claude-opus-5-5 with a 1M window, at 3 characters a token.
    expect(listing.budget).toEqual({ unit: 'columns', limit: 30_000 });
  });

  it('sizes the budget by the model: 1% of its window at its characters per token (test/hosts/listing-budget.test.ts checks these)', () => {
    expect(claudeCodeBudget()).toBe(30_000);
    expect(claudeCodeBudget({ model: 'claude-sonnet-4-6' })).toBe(8_000);
    expect(claudeCodeBudget({ model: 'claude-sonnet-4-6[1m]' })).toBe(40_000);
    expect(claudeCodeBudget({ model: 'claude-opus-4-6' })).toBe(8_000);
    expect(claudeCodeBudget({ model: 'claude-sonnet-4-20250514' })).toBe(8_000);
    expect(claudeCodeBudget({ model: 'claude-3-5-haiku-20241022' })).toBe(8_000);
    // Opus 4.0 and 4.1 run as its default model; every newer or unknown id gets 1M tokens at 3 characters.
    expect(claudeCodeBudget({ model: 'claude-opus-4-20250514' })).toBe(30_000);
    expect(claudeCodeBudget({ model: 'claude-opus-4-1' })).toBe(30_000);
    expect(claudeCodeBudget({ model: 'claude-opus-4-8' })).toBe(30_000);
    expect(claudeCodeBudget({ model: 'opus[1m]' })).toBe(30_000);
    expect(claudeCodeBudget({ model: 'sonnet' })).toBe(30_000);
    expect(claudeCodeBudget({ model: 'some-other-model' })).toBe(30_000);
    expect(claudeCodeBudget({ model: 'constructor' })).toBe(30_000);
    expect(claudeCodeBudget({ contextWindowTokens: 200_000 })).toBe(6_000);
    expect(claudeCodeBudget({ model: 'claude-haiku-4-5', contextWindowTokens: 100_000 })).toBe(4_000);
    expect(claudeCodeBudget({ model: 'claude-haiku-4-5', budgetColumns: 1234 })).toBe(1234);
  });

  it('reads its model, 1M switch and set budget from the environment as it does', () => {
    expect(claudeCodeSetup({})).toEqual({ model: undefined, contextWindowTokens: undefined, budgetColumns: undefined });
    expect(claudeCodeSetup({ ANTHROPIC_MODEL: 'claude-sonnet-4-6', ANTHROPIC_BASE_URL: 'https://api.anthropic.com' })).toMatchObject({
      model: 'claude-sonnet-4-6',
    });
    expect(claudeCodeSetup({ CLAUDE_CODE_DISABLE_1M_CONTEXT: '1', SLASH_COMMAND_TOOL_CHAR_BUDGET: 'x' })).toMatchObject({
      contextWindowTokens: 200_000,
      budgetColumns: undefined,
    });
    expect(claudeCodeSetup({ SLASH_COMMAND_TOOL_CHAR_BUDGET: '7000' }).budgetColumns).toBe(7000);
  });

  it('weighs its usage counts as it does: half a week later, never below a tenth', () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'claude-usage-'));
    try {
      const now = Date.UTC(2026, 0, 29);
      const day = 86_400_000;
      const skillUsage = {
        fresh: { usageCount: 4, lastUsedAt: now },
        week: { usageCount: 4, lastUsedAt: now - 7 * day },
        old: { usageCount: 4, lastUsedAt: now - 70 * day },
        bad: { usageCount: '4' },
      };
      writeFileSync(path.join(home, '.claude.json'), JSON.stringify({ skillUsage }));
      expect(claudeCodeUsage(home, now)).toEqual(
        new Map([
          ['fresh', 4],
          ['week', 2],
          ['old', 0.4],
        ]),
      );
      writeFileSync(path.join(home, '.claude.json'), '{not json');
      expect(claudeCodeUsage(home, now)).toEqual(new Map());
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('its own entries cost what its captured request shows, and a user skill of the same name replaces one', () => {
    const fixture = readFileSync(new URL('../hosts/fixtures/claude-code-skill-listing.txt', import.meta.url), 'utf8').trimEnd();
    const entries = fixture.slice(fixture.indexOf('\n- ') + 1).split(/\n(?=- [a-z-]+:)/);
    const width = new Map(entries.map((entry) => [/^- ([a-z-]+)/.exec(entry)![1]!, displayWidth(entry)]));
    for (const [name, columns] of Object.entries({ ...CLAUDE_CODE_OWN_ENTRIES.bundled, ...CLAUDE_CODE_OWN_ENTRIES.commands })) {
      expect([name, width.get(name)]).toEqual([name, columns]);
    }
    // 60 columns of budget left after its entries: one 50-column line fits, unless a user skill is named as one of them.
    const own = { bundled: { big: 100 }, commands: { cmd: 30 } };
    const skills = [makeSkill('aa', { description: 'a'.repeat(44) }), makeSkill('bb', { description: 'b'.repeat(44) })];
    const budgetColumns = 100 + '- cmd'.length + '- aa\n- bb\n\n'.length + 50;
    expect(claudeCodeListing(skills, { own, budgetColumns }).shortened).toEqual(['bb']);
    const named = [...skills, makeSkill('big', { description: 'x' })];
    expect(claudeCodeListing(named, { own, budgetColumns }).shortened).toEqual([]);
  });

  it('appends when_to_use but not a camelCase whenToUse key, which it does not read', () => {
    const snake = makeSkill('snake', { description: 'Snake', whenToUse: 'when asked' });
    const camel = { ...makeSkill('camel', { description: 'Camel', whenToUse: 'when asked' }), whenToUseKey: 'whenToUse' as const };
    expect(claudeCodeListing([snake, camel]).text).toBe('- snake: Snake - when asked\n- camel: Camel');
  });

  it('cuts the description part at 1,536 characters, ending in …', () => {
    const long = makeSkill('long', { description: 'd'.repeat(1000), whenToUse: 'w'.repeat(1000) });
    const part = claudeCodeListing([long]).text.slice('- long: '.length);
    expect(part).toHaveLength(1536);
    expect(part).toBe(`${'d'.repeat(1000)} - ${'w'.repeat(532)}…`);
  });

  it('over budget keeps every name; its bundled skills keep their description, then the most used; no note', () => {
    const skills = [
      makeSkill('alpha', { description: 'a'.repeat(60) }),
      makeSkill('beta', { description: 'b'.repeat(60) }),
      makeSkill('gamma', { description: 'c'.repeat(60) }),
      makeSkill('builtin', { description: 'z'.repeat(60), source: 'bundled' }),
    ];
    // 200 columns of budget, none of Claude Code's own entries: the bundled line, one described line and two names.
    const listing = claudeCodeListing(skills, { budgetColumns: 200, own: { bundled: {}, commands: {} }, usage: new Map([['gamma', 3]]) });
    expect(listing.text).toBe(['- alpha', '- beta', `- gamma: ${'c'.repeat(60)}`, `- builtin: ${'z'.repeat(60)}`].join('\n'));
    expect(listing.shortened).toEqual(['alpha', 'beta']);
    expect(listing.omitted).toEqual([]);
    // Its bundled skills come last wherever they stand in the catalog, the others in their order.
    const bundledFirst = claudeCodeListing([skills[3]!, ...skills.slice(0, 3)], {
      budgetColumns: 200,
      own: { bundled: {}, commands: {} },
      usage: new Map([['gamma', 3]]),
    });
    expect(bundledFirst.text).toBe(listing.text);
  });

  it('never lists a skill kept from the model', () => {
    const hidden: Skill = { ...THREE[0]!, invocation: { model: false, user: true, reasons: ['disable-model-invocation: true'] } };
    expect(claudeCodeListing([hidden, THREE[1]!]).listed).toEqual(['pdf-tables']);
  });

  it('shows a frontmatter name beside its folder’s when that name finds the skill, and pays for it (test/hosts/listing-budget.test.ts checks it)', () => {
    const skills = ['docs-translate', 'pdf-0', 'pdf-1', 'notes-x', 'spaced', 'copy-of-csv', 'csv-clean'].map((name) => makeSkill(name, { description: 'd' }));
    const frontmatter = new Map([
      ['docs-translate', { name: 'acme-docs-translator' }],
      // The first skill going by a name takes it; the second is listed plain.
      ['pdf-0', { name: 'pdf' }],
      ['pdf-1', { name: 'pdf' }],
      // One of its own commands' names, a name it would not show, another skill's name: plain.
      ['notes-x', { name: 'release-notes' }],
      ['spaced', { name: 'two words' }],
      ['copy-of-csv', { name: 'csv-clean' }],
    ]);
    const listing = claudeCodeListing(skills, { frontmatter });
    expect(listing.text.split('\n')).toEqual([
      '- docs-translate (acme-docs-translator): d',
      '- pdf-0 (pdf): d',
      '- pdf-1: d',
      '- notes-x: d',
      '- spaced: d',
      '- copy-of-csv: d',
      '- csv-clean: d',
    ]);
    expect(listing.listed).toEqual(skills.map((skill) => skill.name));
    // Over budget the shown name stays, without its description.
    const tight = claudeCodeListing(skills.slice(0, 1), { frontmatter, budgetColumns: 10, own: { bundled: {}, commands: {} } });
    expect(tight.text).toBe('- docs-translate (acme-docs-translator)');
  });

  it('shows each run of hidden characters as one space (not an emoji’s joiners) and escapes angle brackets; the written texts win', () => {
    const skill = makeSkill('mail', { description: 'Lay out\n\n  <table> mail\u200b\u200bfor 👩\u200d💻 devs', whenToUse: 'when asked' });
    expect(claudeCodeListing([skill]).text).toBe('- mail: Lay out   &lt;table&gt; mail for 👩\u200d💻 devs - when asked');
    // A when_to_use block's final line break is kept, as a space.
    const written = new Map([['mail', { description: 'Lay out mail', whenToUse: 'when the user\nsends mail\n' }]]);
    expect(claudeCodeListing([skill], { frontmatter: written }).text).toBe('- mail: Lay out mail - when the user sends mail ');
  });

  it('reads the frontmatter texts of its own folders’ skills as written (claudeCodeFrontmatter)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'claude-frontmatter-'));
    try {
      const file = (name: string, text: string) => {
        mkdirSync(path.join(dir, name), { recursive: true });
        writeFileSync(path.join(dir, name, 'SKILL.md'), text);
        return makeSkill(name, { path: path.join(dir, name, 'SKILL.md') });
      };
      const skills = [
        file('block', '---\nname: written-block\ndescription: >\n  Folded\n  text\nwhen_to_use: |\n  line one\n  line two\n---\n# Body\n'),
        file('colon', '---\nname: colon-name\ndescription: Fill forms: fields\n---\n# Body\n'),
        file('broken', '---\nname: broken-name\ndescription: "unterminated\n---\n# Body\n'),
        { ...file('library', '---\nname: library-name\ndescription: d\n---\n'), source: 'library' as const },
      ];
      expect(await claudeCodeFrontmatter(skills)).toEqual(
        new Map([
          ['block', { name: 'written-block', description: 'Folded text', whenToUse: 'line one\nline two\n' }],
          ['colon', { name: 'colon-name', description: 'Fill forms: fields', whenToUse: undefined }],
        ]),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('measures in display columns: wide characters count twice', () => {
    expect(displayWidth('ab系统\u0301')).toBe(6);
  });
});

describe('Codex 0.171.0', () => {
  const roots = [
    { dir: `${HOME}/.agents/skills`, scope: 'user' as const },
    { dir: `${HOME}/.codex/skills/.system`, scope: 'system' as const },
  ];

  it('renders the skills section as the captured request does: roots table, short paths, system scope first', () => {
    const system = makeSkill('skill-creator', {
      description: 'Create or update a Codex skill.',
      source: 'codex',
      path: `${HOME}/.codex/skills/.system/skill-creator/SKILL.md`,
    });
    const section = codexSkillsSection([...THREE, system], { roots });
    expect(section.text).toBe(
      [
        '<skills_instructions>',
        '## Skills',
        'A skill is a set of local instructions to follow that is stored in a `SKILL.md` file. Below is the list of skills that can be used. Each entry includes a name, description, and a short path that can be expanded into an absolute path using the skill roots table.',
        '### Skill roots',
        `- \`r0\` = \`${HOME}/.agents/skills\``,
        `- \`r1\` = \`${HOME}/.codex/skills/.system\``,
        '### Available skills',
        '- skill-creator: Create or update a Codex skill. (file: r1/skill-creator/SKILL.md)',
        '- csv-clean: Clean, dedupe and normalise CSV spreadsheets (file: r0/csv-clean/SKILL.md)',
        '- pdf-tables: Extract text and tables from PDF files into CSV (file: r0/pdf-tables/SKILL.md)',
        '- release-notes: Write release notes from the git log between two tags (file: r0/release-notes/SKILL.md)',
        '</skills_instructions>',
      ].join('\n'),
    );
    // The window it assumed for every model tried: 2% of 272,000 tokens.
    expect(section.budget).toEqual({ unit: 'tokens', limit: 5440 });
  });

  it('with a context window, 2% of it in tokens; over budget the descriptions share what is left', () => {
    // 2% of 3,450 tokens = 69 tokens (the roots table, under 142 bytes, costs nothing).
    const section = codexSkillsSection(THREE, { roots, contextWindowTokens: 3450 });
    expect(section.budget).toEqual({ unit: 'tokens', limit: 69 });
    expect(section.listed).toEqual(['csv-clean', 'pdf-tables', 'release-notes']);
    // One character at a time to each: the shortest description is whole before the others are.
    expect(section.shortened).toEqual(['pdf-tables', 'release-notes']);
    const lines = section.text.split('\n').filter((line) => line.startsWith('- ') && line.includes('(file:'));
    for (const line of lines) expect(line).toMatch(/^- [a-z-]+: \S.* \(file: r0\/[a-z-]+\/SKILL\.md\)$/);
  });

  it('charges its roots table beyond its first 142 bytes to the same budget, a token per 4 bytes', () => {
    const at = (home: string) => {
      const deep = [
        { dir: `${home}/.agents/skills`, scope: 'user' as const },
        { dir: `${home}/.codex/skills/.system`, scope: 'system' as const },
      ];
      const skills = ['alpha', 'beta', 'gamma'].map((name) =>
        makeSkill(name, { description: 'word '.repeat(100), source: 'codex', path: `${home}/.agents/skills/${name}/SKILL.md` }),
      );
      const section = codexSkillsSection(skills, { roots: deep, contextWindowTokens: 9000 });
      const rootBytes = section.text
        .split('\n')
        .filter((line) => line.startsWith('- `r'))
        .reduce((sum, line) => sum + line.length + 1, 0);
      const lineTokens = section.text
        .split('\n')
        .filter((line) => line.includes(' (file: '))
        .reduce((sum, line) => sum + Math.ceil((line.length + 1) / 4), 0);
      return { rootBytes, lineTokens, budget: section.budget.limit };
    };
    const near = at('/h');
    const far = at(`/h/${'d'.repeat(199)}`);
    expect(near.rootBytes).toBeLessThan(142);
    expect(far.rootBytes - near.rootBytes).toBe(200);
    expect([near.budget, far.budget]).toEqual([180, 180]);
    // Near, the lines have all 180 tokens; far, the table takes ceil((rootBytes - 142) / 4) of them.
    expect(near.lineTokens).toBe(180);
    expect(far.lineTokens).toBe(180 - Math.ceil((far.rootBytes - 142) / 4));
  });

  it('sends a multi-line description on one line', () => {
    const multi = agents('multi', 'First line.\nSecond line.\r\nThird.');
    expect(codexSkillsSection([multi], { roots }).text).toContain('- multi: First line. Second line. Third. (file: r0/multi/SKILL.md)');
  });

  it('its own skills (an unprinted root) pay for their lines but are not printed, nor their root', () => {
    const system = makeSkill('skill-creator', {
      description: 'x'.repeat(300),
      source: 'codex',
      path: `${HOME}/.codex/skills/.system/skill-creator/SKILL.md`,
    });
    // 73 tokens: the three lines fit whole alone, not beside its own skill.
    const alone = codexSkillsSection(THREE, { roots, contextWindowTokens: 3800 });
    const shared = codexSkillsSection([...THREE, system], { roots, contextWindowTokens: 3800, unprintedRoot: roots[1]!.dir });
    expect(alone.shortened).toEqual([]);
    expect(shared.listed).toEqual(['csv-clean', 'pdf-tables', 'release-notes']);
    expect(shared.shortened.length).toBeGreaterThan(0);
    expect(shared.text).not.toContain('skill-creator');
    expect(shared.text).not.toContain('.system');
    expect(codexSkillsSection([system], { roots, unprintedRoot: roots[1]!.dir }).text).toBe('');
  });

  it('leaves skills out when even names and paths do not fit', () => {
    const section = codexSkillsSection(THREE, { roots, contextWindowTokens: 1500 });
    expect(section.omitted.length).toBeGreaterThan(0);
    expect(section.listed.length + section.omitted.length).toBe(3);
  });

  it('lists a skill kept from the model by Claude Code’s flag only (Codex does not read it)', () => {
    const flagged: Skill = { ...THREE[2]!, invocation: { model: false, user: true, reasons: ['disable-model-invocation: true'] } };
    expect(codexSkillsSection([THREE[0]!, flagged], { roots }).listed).toEqual(['csv-clean', flagged.name]);
  });

  it('cuts a description over 1,024 characters to 1,021 and `...`, as Codex does', () => {
    const long: Skill = { ...THREE[0]!, description: `${'word '.repeat(300)}end` };
    const line = codexSkillsSection([long], { roots })
      .text.split('\n')
      .find((entry) => entry.startsWith(`- ${long.name}: `))!;
    expect(line).toBe(`- ${long.name}: ${long.description.slice(0, 1021)}... (file: ${line.split(' (file: ')[1]}`);
  });

  it('leaves out a skill whose agents/openai.yaml forbids implicit invocation', () => {
    const hidden: Skill = { ...THREE[2]!, invocation: { model: false, user: true, reasons: ['agents/openai.yaml: policy.allow_implicit_invocation: false'] } };
    expect(codexSkillsSection([THREE[0]!, hidden], { roots }).listed).toEqual(['csv-clean']);
  });

  it('sizes its window by the model’s catalog entry, model_context_window capped at the model’s largest, --context-window over both', () => {
    expect(codexContextWindow({})).toBe(272_000);
    expect(codexContextWindow({ model: 'gpt-5' })).toBe(272_000);
    expect(codexContextWindow({ model: 'gpt-6.2-sol' })).toBe(500_000);
    expect(codexContextWindow({ model: 'gpt-daybreak-red-latest' })).toBe(372_000);
    // An id is matched whole; Object's own properties are no model.
    expect(codexContextWindow({ model: 'gpt-6.2-sol-preview' })).toBe(272_000);
    expect(codexContextWindow({ model: 'constructor' })).toBe(272_000);
    expect(codexContextWindow({ model: 'gpt-5', configuredWindowTokens: 100_000 })).toBe(100_000);
    expect(codexContextWindow({ model: 'gpt-5', configuredWindowTokens: 1_000_000 })).toBe(272_000);
    expect(codexContextWindow({ model: 'gpt-5.5', configuredWindowTokens: 800_000 })).toBe(272_000);
    expect(codexContextWindow({ model: 'gpt-6.2-sol', configuredWindowTokens: 1_000_000 })).toBe(872_000);
    expect(codexContextWindow({ model: 'gpt-5.5', configuredWindowTokens: 800_000, contextWindowTokens: 900_000 })).toBe(900_000);
    expect(codexSkillsSection(THREE, { roots, model: 'gpt-6.2-sol' }).budget).toEqual({ unit: 'tokens', limit: 10_000 });
  });

  it('flags, without printing it, the usage text Codex adds after the list for gpt-5.5 alone', () => {
    expect(codexSkillsSection(THREE, { roots, model: 'gpt-5.5' }).usageInstructions).toBe(true);
    for (const model of [undefined, 'gpt-5', 'gpt-6.2-sol']) expect(codexSkillsSection(THREE, { roots, model })).not.toHaveProperty('usageInstructions');
    expect(codexSkillsSection(THREE, { roots, model: 'gpt-5.5' }).text).toBe(codexSkillsSection(THREE, { roots }).text);
  });

  describe('what it reads from config.toml', () => {
    const dirs: string[] = [];
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text);
    };
    const setup = () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'codex-config-'));
      dirs.push(dir);
      return { codexHome: path.join(dir, 'codex'), cwd: path.join(dir, 'project') };
    };
    afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

    it('model and model_context_window of the user’s file; nothing when it is missing or broken', async () => {
      const { codexHome, cwd } = setup();
      expect(await codexSetup(codexHome, cwd)).toEqual({ model: undefined, configuredWindowTokens: undefined });
      write(path.join(codexHome, 'config.toml'), 'model = "gpt-5.5"\nmodel_context_window = 100000\n');
      expect(await codexSetup(codexHome, cwd)).toEqual({ model: 'gpt-5.5', configuredWindowTokens: 100_000 });
      write(path.join(codexHome, 'config.toml'), 'model = [broken\n');
      expect(await codexSetup(codexHome, cwd)).toEqual({ model: undefined, configuredWindowTokens: undefined });
      write(path.join(codexHome, 'config.toml'), 'model = ""\nmodel_context_window = -5\n');
      expect(await codexSetup(codexHome, cwd)).toEqual({ model: undefined, configuredWindowTokens: undefined });
    });

    it('a project’s .codex/config.toml over it, only when the user’s file trusts the project', async () => {
      const { codexHome, cwd } = setup();
      write(path.join(cwd, '.codex', 'config.toml'), 'model_context_window = 100000\n');
      write(path.join(codexHome, 'config.toml'), 'model = "gpt-6.2-sol"\nmodel_context_window = 600000\n');
      expect(await codexSetup(codexHome, cwd)).toEqual({ model: 'gpt-6.2-sol', configuredWindowTokens: 600_000 });
      write(
        path.join(codexHome, 'config.toml'),
        `model = "gpt-6.2-sol"\nmodel_context_window = 600000\n[projects.${JSON.stringify(cwd)}]\ntrust_level = "untrusted"\n`,
      );
      expect(await codexSetup(codexHome, cwd)).toEqual({ model: 'gpt-6.2-sol', configuredWindowTokens: 600_000 });
      write(
        path.join(codexHome, 'config.toml'),
        `model = "gpt-6.2-sol"\nmodel_context_window = 600000\n[projects.${JSON.stringify(cwd)}]\ntrust_level = "trusted"\n`,
      );
      expect(await codexSetup(codexHome, cwd)).toEqual({ model: 'gpt-6.2-sol', configuredWindowTokens: 100_000 });
    });
  });
});
