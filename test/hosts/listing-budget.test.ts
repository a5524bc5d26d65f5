/**
 * Claude Code's listing budget with many skills: `list --host claude-code`, run in the same HOME
 * with the same model settings, must predict the real request's listing byte for byte (which
 * skills keep their description, which are names only), and Claude Code's own entries after the
 * user's must cost what CLAUDE_CODE_OWN_ENTRIES says.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { CLAUDE_CODE_OWN_ENTRIES, displayWidth } from '../../src/attachments/host-listing.js';
import { ROOT } from '../cli/helpers.js';
import { startAnthropicStub } from './support/anthropic-stub.js';
import { CLAUDE_LISTING_HEADER, claudeSkillListing, promptClaude } from './support/claude.js';
import { codexSkillsSection, promptCodex } from './support/codex.js';
import { startOpenAiStub } from './support/openai-stub.js';
import { HostHome } from './support/host-home.js';
import type { RecordingServer } from './support/recording-server.js';
import { OFF_TOPIC } from './support/skills.js';

const bins = inject('hostBins');
const EVAL_LIBRARY = path.join(process.env.SKILL_SEARCH_EVAL_DIR ?? path.resolve(ROOT, '..', 'shared', 'eval'), 'library');
/**
 * The repository's own skills (English and Chinese, for wide characters; each with a `when_to_use`
 * Claude Code appends), copied under numbered names to reach a count.
 */
const REPO_SKILL_DIRS = ['examples/skills', 'examples/project/.claude/skills', 'fixtures/chinese-skills/skills'];

const CLAUDE_ROOT = '.claude/skills';
const CODEX_ROOT = '.agents/skills';

function skillFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((entry) => {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) return skillFiles(file);
      return entry.name === 'SKILL.md' ? [file] : [];
    });
}

/** The first `count` library skills by path, one per folder name, as `~/<root>/<folder>/SKILL.md`. */
function addLibrarySkills(home: HostHome, count: number, root = CLAUDE_ROOT): void {
  const seen = new Set<string>();
  for (const file of skillFiles(EVAL_LIBRARY)) {
    const name = path.basename(path.dirname(file));
    if (seen.size === count) break;
    if (seen.has(name)) continue;
    seen.add(name);
    mkdirSync(path.join(home.home, root, name), { recursive: true });
    copyFileSync(file, path.join(home.home, root, name, 'SKILL.md'));
  }
}

/** `count` copies of the repository's skills, round after round (`<folder>-<round>`). */
function addRepoSkills(home: HostHome, count: number, root = CLAUDE_ROOT): void {
  const files = REPO_SKILL_DIRS.flatMap((dir) => skillFiles(path.join(ROOT, dir)));
  for (let i = 0; i < count; i++) {
    const file = files[i % files.length]!;
    const name = `${path.basename(path.dirname(file))}-${Math.floor(i / files.length)}`;
    mkdirSync(path.join(home.home, root, name), { recursive: true });
    copyFileSync(file, path.join(home.home, root, name, 'SKILL.md'));
  }
}

interface Predicted {
  readonly text: string;
  readonly listed: readonly string[];
  readonly shortened: readonly string[];
  readonly budget: { readonly unit: string; readonly limit: number };
}

describe.skipIf(bins.claude === undefined)('Claude Code’s listing budget with many skills (list --host claude-code against the real request)', () => {
  const homes: HostHome[] = [];
  const stubs: RecordingServer[] = [];
  afterAll(async () => {
    for (const stub of stubs) await stub.close();
    for (const home of homes) home.remove();
  });

  /** Runs Claude Code and `list --host claude-code` in one HOME with `env`; returns both, the host's own entries split off. */
  async function compare(add: (home: HostHome) => void, env: (stub: RecordingServer) => Record<string, string>) {
    const stub = await startAnthropicStub();
    stubs.push(stub);
    const home = new HostHome();
    homes.push(home);
    add(home);
    const settings = env(stub);
    const turn = await promptClaude(home, bins.claude!, stub, OFF_TOPIC, [], settings);
    const sent = claudeSkillListing(turn.request)!;
    const predicted = JSON.parse((await home.cli(['list', '--host', 'claude-code', '--json'], settings)).stdout) as Predicted;
    const ours = `${CLAUDE_LISTING_HEADER}\n\n${predicted.text}\n`;
    const own = sent.startsWith(ours) ? sent.slice(ours.length).split(/\n(?=- [a-z-]+(?::|$))/m) : [];
    const described = (lines: readonly string[]) => lines.filter((entry) => entry.includes(': ') || entry.includes(':\n'));
    return { sent, predicted, ours, own, userDescribed: predicted.listed.length - predicted.shortened.length, ownDescribed: described(own) };
  }

  /** The host's own entries after the user's: its bundled skills described at the columns recorded, then its commands (those the user's do not replace). */
  function expectOwnEntries(own: readonly string[], userNames: readonly string[]): void {
    const left = (entries: Readonly<Record<string, number>>) => Object.entries(entries).filter(([name]) => !userNames.includes(name));
    const bundled = left(CLAUDE_CODE_OWN_ENTRIES.bundled);
    const commands = left(CLAUDE_CODE_OWN_ENTRIES.commands);
    expect(own.map((entry) => /^- ([a-z-]+)/.exec(entry)?.[1])).toEqual([...bundled, ...commands].map(([name]) => name));
    expect(own.slice(0, bundled.length).map((entry) => displayWidth(entry))).toEqual(bundled.map(([, width]) => width));
  }

  it.skipIf(!existsSync(EVAL_LIBRARY))(
    '165 library skills (needs SKILL_SEARCH_EVAL_DIR/library), its default model (1M window, 3 characters a token): 30,000 columns',
    async () => {
      const { sent, predicted, ours, own, userDescribed } = await compare(
        (home) => addLibrarySkills(home, 165),
        () => ({}),
      );
      expect(predicted.budget).toEqual({ unit: 'columns', limit: 30_000 });
      expect(sent.slice(0, ours.length)).toBe(ours);
      expectOwnEntries(own, predicted.listed);
      // Over budget: some described, the rest by name; the whole listing within the budget.
      expect(userDescribed).toBeGreaterThan(40);
      expect(predicted.shortened.length).toBeGreaterThan(40);
      expect(displayWidth(sent.slice(CLAUDE_LISTING_HEADER.length + 2))).toBeLessThanOrEqual(30_000);
    },
  );

  it.skipIf(!existsSync(EVAL_LIBRARY))(
    '400 library skills (needs SKILL_SEARCH_EVAL_DIR/library), claude-sonnet-4-6[1m] (1M window, 4 characters a token): 40,000 columns',
    async () => {
      const { sent, predicted, ours, own } = await compare(
        (home) => addLibrarySkills(home, 400),
        () => ({ ANTHROPIC_MODEL: 'claude-sonnet-4-6[1m]' }),
      );
      expect(predicted.budget).toEqual({ unit: 'columns', limit: 40_000 });
      expect(sent.slice(0, ours.length)).toBe(ours);
      expectOwnEntries(own, predicted.listed);
      expect(predicted.shortened.length).toBeGreaterThan(200);
    },
  );

  it('165 of the repository’s skills (Chinese ones included), claude-sonnet-4-6 (200,000 tokens, 4 characters a token): 8,000 columns', async () => {
    const { sent, predicted, ours, own } = await compare(
      (home) => addRepoSkills(home, 165),
      () => ({ ANTHROPIC_MODEL: 'claude-sonnet-4-6' }),
    );
    expect(predicted.budget).toEqual({ unit: 'columns', limit: 8_000 });
    expect(sent.slice(0, ours.length)).toBe(ours);
    expectOwnEntries(own, predicted.listed);
    expect(predicted.listed.length).toBeGreaterThan(150);
    expect(predicted.shortened).toEqual(expect.arrayContaining(['zero-downtime-migration-3', 'test-writing-2']));
    expect(predicted.shortened.length).toBeGreaterThan(0);
    expect(predicted.shortened.length).toBeLessThan(165);
  });

  it('a model set in ~/.claude/settings.json (claude-sonnet-4-6): 8,000 columns', async () => {
    const { sent, predicted, ours } = await compare(
      (home) => {
        addRepoSkills(home, 100);
        writeFileSync(path.join(home.home, '.claude', 'settings.json'), JSON.stringify({ model: 'claude-sonnet-4-6' }));
      },
      () => ({}),
    );
    expect(predicted.budget).toEqual({ unit: 'columns', limit: 8_000 });
    expect(sent.slice(0, ours.length)).toBe(ours);
    expect(predicted.shortened.length).toBeGreaterThan(0);
  });

  it('over budget, the skills Claude Code counts as used (skillUsage in ~/.claude.json) keep their description first', async () => {
    const used = ['zero-downtime-migration-3', 'test-writing-2'];
    const now = Date.now();
    const { sent, predicted, ours } = await compare(
      (home) => {
        addRepoSkills(home, 165);
        const skillUsage = { [used[0]!]: { usageCount: 3, lastUsedAt: now }, [used[1]!]: { usageCount: 9, lastUsedAt: now - 14 * 86_400_000 } };
        writeFileSync(path.join(home.home, '.claude.json'), JSON.stringify({ skillUsage }));
      },
      // Room for a few descriptions beside its own entries (8,000 columns, as above, leave none).
      () => ({ SLASH_COMMAND_TOOL_CHAR_BUDGET: '11000' }),
    );
    expect(sent.slice(0, ours.length)).toBe(ours);
    expect(predicted.shortened.length).toBeGreaterThan(100);
    // Late in the order, they would be names only by order alone (as in the test above).
    for (const name of used) expect(predicted.shortened).not.toContain(name);
  });

  it('claude-opus-4-8 behind another base URL: a 1M window at 3 characters, 30,000 columns (2.1.197 gave it 200,000 tokens there)', async () => {
    const { sent, predicted, ours, own } = await compare(
      (home) => addRepoSkills(home, 165),
      (stub) => ({ ANTHROPIC_MODEL: 'claude-opus-4-8', ANTHROPIC_BASE_URL: stub.url }),
    );
    expect(predicted.budget).toEqual({ unit: 'columns', limit: 30_000 });
    expect(sent.slice(0, ours.length)).toBe(ours);
    expectOwnEntries(own, predicted.listed);
    expect(predicted.shortened.length).toBeGreaterThan(0);
  });

  it('the examples’ when_to_use reaches Claude Code’s listing (a copy of examples/skills/pdf)', async () => {
    const { sent, predicted, ours } = await compare(
      (home) => addRepoSkills(home, 9),
      () => ({}),
    );
    expect(sent.slice(0, ours.length)).toBe(ours);
    expect(predicted.shortened).toEqual([]);
    expect(sent).toContain(
      '- pdf-0 (pdf): Extract text, tables and images from PDF files, split or merge PDFs, fill PDF forms, and create new PDF documents - when the user asks to read, parse, extract from, convert, split, merge, fill, OCR or generate a PDF document\n',
    );
  });

  it('SLASH_COMMAND_TOOL_CHAR_BUDGET sets the budget in columns, whatever the model', async () => {
    const { sent, predicted, ours } = await compare(
      (home) => addRepoSkills(home, 60),
      () => ({ SLASH_COMMAND_TOOL_CHAR_BUDGET: '7000' }),
    );
    expect(predicted.budget).toEqual({ unit: 'columns', limit: 7_000 });
    expect(sent.slice(0, ours.length)).toBe(ours);
  });
});

/** The text Codex adds after the list for some models (gpt-5.5): its own, not predicted. */
const USAGE_BLOCK = /\n### How to use skills\n[\s\S]*(?=\n<\/skills_instructions>$)/;

/** Codex's section without its own `.system` skills and their root (the last in its table), which it installs itself. */
function withoutCodexSystemSkills(section: string): string {
  const system = /^- `(r\d+)` = `[^`]*\/skills\/\.system`$/m.exec(section)?.[1];
  return section
    .split('\n')
    .filter((line) => system === undefined || (!line.startsWith(`- \`${system}\` = `) && !line.includes(` (file: ${system}/`)))
    .join('\n');
}

describe.skipIf(bins.codex === undefined)('Codex’s skills budget with many skills (list --host codex against the real request)', () => {
  const homes: HostHome[] = [];
  const stubs: RecordingServer[] = [];
  afterAll(async () => {
    for (const stub of stubs) await stub.close();
    for (const home of homes) home.remove();
  });

  interface Run {
    /** Codex's flags. */
    readonly flags?: readonly string[];
    /** Our `--context-window`. */
    readonly window?: string;
    /** Codex's `-c model=…` (gpt-5); null: the one its config.toml sets. */
    readonly model?: string | null;
    /** Environment for both (CODEX_HOME). */
    readonly env?: (home: HostHome) => Record<string, string>;
  }

  /** Codex then `list --host codex` in one HOME; its own skills and its usage block cut from what it sent. */
  async function compare(add: (home: HostHome) => void, { flags = [], window, model, env: envOf }: Run = {}) {
    const stub = await startOpenAiStub();
    stubs.push(stub);
    const home = new HostHome();
    homes.push(home);
    add(home);
    const env = envOf?.(home) ?? {};
    const turn = await promptCodex(home, bins.codex!, stub, OFF_TOPIC, flags, { model, env });
    const sent = withoutCodexSystemSkills(codexSkillsSection(turn.request)!);
    const args = ['list', '--host', 'codex', '--json', ...(window === undefined ? [] : ['--context-window', window])];
    const predicted = JSON.parse((await home.cli(args, env)).stdout) as Predicted & { omitted: readonly string[]; usageInstructions?: boolean };
    const usageBlock = USAGE_BLOCK.exec(sent)?.[0];
    return { sent: usageBlock === undefined ? sent : sent.replace(usageBlock, ''), usageBlock, predicted, model: turn.request.model, home };
  }

  function writeToml(file: string, text: string): void {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }

  it.skipIf(!existsSync(EVAL_LIBRARY))(
    '165 library skills (needs SKILL_SEARCH_EVAL_DIR/library): 2% of 272,000 tokens, its roots table and its own skills paid for, descriptions shortened',
    async () => {
      const { sent, predicted } = await compare((home) => addLibrarySkills(home, 165, CODEX_ROOT));
      expect(predicted.budget).toEqual({ unit: 'tokens', limit: 5440 });
      expect(predicted.text).toBe(sent);
      expect(predicted.shortened.length).toBeGreaterThan(150);
      // A multi-line description (claude-api's) is sent on one line.
      expect(sent).toMatch(/^- claude-api: [^\n]+ \(file: r0\/claude-api\/SKILL\.md\)$/m);
    },
  );

  it.skipIf(!existsSync(EVAL_LIBRARY))('400 library skills (needs SKILL_SEARCH_EVAL_DIR/library): names and paths only, the last left out', async () => {
    const { sent, predicted } = await compare((home) => addLibrarySkills(home, 400, CODEX_ROOT));
    expect(predicted.text).toBe(sent);
    expect(predicted.omitted.length).toBeGreaterThan(20);
  });

  it('model_context_window = 100000: 2,000 tokens (165 of the repository’s skills)', async () => {
    const { sent, predicted } = await compare((home) => addRepoSkills(home, 165, CODEX_ROOT), {
      flags: ['-c', 'model_context_window=100000'],
      window: '100000',
    });
    expect(predicted.budget).toEqual({ unit: 'tokens', limit: 2000 });
    expect(predicted.text).toBe(sent);
    expect(predicted.omitted.length).toBeGreaterThan(0);
  });

  it('the model in ~/.codex/config.toml (gpt-6.2-sol, 500,000 tokens in its catalog): 10,000 tokens, all 165 described', async () => {
    const { sent, predicted, model } = await compare(
      (home) => {
        addRepoSkills(home, 165, CODEX_ROOT);
        writeToml(path.join(home.home, '.codex', 'config.toml'), 'model = "gpt-6.2-sol"\n');
      },
      { model: null },
    );
    expect(model).toBe('gpt-6.2-sol');
    expect(predicted.budget).toEqual({ unit: 'tokens', limit: 10_000 });
    expect(predicted.text).toBe(sent);
    expect(predicted.shortened).toEqual([]);
  });

  it('$CODEX_HOME/config.toml is the user’s file when set (gpt-6.2-sol: all 165 described)', async () => {
    const { sent, predicted, model } = await compare(
      (home) => {
        addRepoSkills(home, 165, CODEX_ROOT);
        writeToml(path.join(home.home, 'codex-home', 'config.toml'), 'model = "gpt-6.2-sol"\n');
      },
      { model: null, env: (home) => ({ CODEX_HOME: path.join(home.home, 'codex-home') }) },
    );
    expect(model).toBe('gpt-6.2-sol');
    expect(predicted.budget).toEqual({ unit: 'tokens', limit: 10_000 });
    expect(predicted.text).toBe(sent);
  });

  it('a trusted project’s .codex/config.toml is read over the user’s; an untrusted one is not', async () => {
    // The user's file: gpt-6.2-sol raised to 600,000 tokens (within its 872,000), room for every description.
    const projectWindow = (trusted: boolean) => (home: HostHome) => {
      addRepoSkills(home, 165, CODEX_ROOT);
      writeToml(path.join(home.project, '.codex', 'config.toml'), 'model_context_window = 100000\n');
      const trust = trusted ? `[projects.${JSON.stringify(home.project)}]\ntrust_level = "trusted"\n` : '';
      writeToml(path.join(home.home, '.codex', 'config.toml'), `model = "gpt-6.2-sol"\nmodel_context_window = 600000\n${trust}`);
    };
    const trusted = await compare(projectWindow(true), { model: null });
    expect(trusted.predicted.budget).toEqual({ unit: 'tokens', limit: 2000 });
    expect(trusted.predicted.text).toBe(trusted.sent);
    const untrusted = await compare(projectWindow(false), { model: null });
    expect(untrusted.predicted.budget).toEqual({ unit: 'tokens', limit: 12_000 });
    expect(untrusted.predicted.text).toBe(untrusted.sent);
    expect(untrusted.predicted.shortened).toEqual([]);
  });

  it('gpt-5.5 adds its usage block after the list (flagged, not printed); model_context_window above its 272,000 is capped', async () => {
    const { sent, usageBlock, predicted, model, home } = await compare(
      (home) => {
        addRepoSkills(home, 165, CODEX_ROOT);
        writeToml(path.join(home.home, '.codex', 'config.toml'), 'model = "gpt-5.5"\nmodel_context_window = 800000\n');
      },
      { model: null },
    );
    expect(model).toBe('gpt-5.5');
    expect(usageBlock).toBeDefined();
    expect(predicted.usageInstructions).toBe(true);
    expect(predicted.budget).toEqual({ unit: 'tokens', limit: 5440 });
    // Capped: Codex shortened descriptions that 800,000 tokens would have room for.
    const uncapped = JSON.parse((await home.cli(['list', '--host', 'codex', '--json', '--context-window', '800000'])).stdout) as Predicted;
    expect(uncapped.shortened).toEqual([]);
    expect(predicted.shortened.length).toBeGreaterThan(40);
    expect(sent).not.toBe(uncapped.text);
    expect(predicted.text).toBe(sent);
  });

  it('its roots table is paid for out of the budget: a CODEX_HOME 1 to 4 characters deeper shifts the cuts, predicted each time', async () => {
    for (const depth of [1, 2, 3, 4]) {
      const codexHome = (home: HostHome) => path.join(home.home, 'c'.repeat(depth));
      const { sent, predicted } = await compare(
        (home) => {
          addRepoSkills(home, 165, CODEX_ROOT);
          mkdirSync(codexHome(home));
        },
        { env: (home) => ({ CODEX_HOME: codexHome(home) }) },
      );
      expect(predicted.shortened.length).toBeGreaterThan(40);
      expect(predicted.text).toBe(sent);
    }
  });

  it('gpt-5 (any id not in its catalog) gets no usage block, and list --host codex flags none', async () => {
    const { usageBlock, predicted } = await compare((home) => addRepoSkills(home, 20, CODEX_ROOT));
    expect(usageBlock).toBeUndefined();
    expect(predicted.usageInstructions).toBeUndefined();
  });
});
