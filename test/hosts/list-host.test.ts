/**
 * `skill-search list --host <host>` predicts the skills text a host sends: run in the same HOME
 * as the real host, its output must equal the text captured from the host's request for the
 * user's skills (the hosts' own bundled skills are not ours to predict).
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startAnthropicStub } from './support/anthropic-stub.js';
import { claudeSkillListing, promptClaude } from './support/claude.js';
import { codexSkillsSection, promptCodex } from './support/codex.js';
import { installedHomes, type SkillFile } from './support/host-home.js';
import { startOpenAiStub } from './support/openai-stub.js';
import type { RecordingServer } from './support/recording-server.js';
import { DEPLOY, OFF_TOPIC, SKILLS } from './support/skills.js';

const bins = inject('hostBins');

/** The host rules a prediction must follow: when_to_use appended, a long text cut, a line break and `<` shown as Claude Code shows them, a forbidden skill left out. */
const RULED_SKILLS: readonly SkillFile[] = [
  ...SKILLS,
  DEPLOY,
  { name: 'invoice-ocr', description: 'Read scanned invoices', frontmatter: ['when_to_use: When the user has invoices as images or scanned PDFs'] },
  { name: 'style-guide', description: `House style for prose. ${'Prefer short sentences and plain words. '.repeat(45).trim()}` },
  // A line break in a frontmatter text, and angle brackets: Claude Code lists them as a space and escaped.
  {
    name: 'html-email',
    description: 'Lay out <table> emails for old clients',
    raw: '---\nname: html-email\ndescription: Lay out <table> emails for old clients\nwhen_to_use: |\n  When the user sends\n  an HTML email\n---\n# Email\n',
  },
];

/** A SKILL.md whose frontmatter name is not its folder's: Claude Code lists it by the folder, the frontmatter name beside it. */
const FOLDER_NAMED: SkillFile = {
  name: 'react-best-practices',
  description: 'React performance rules',
  raw: '---\nname: vercel-react-best-practices\ndescription: React performance rules\n---\n# React\n',
};

/** A SKILL.md of `bytes` bytes. */
function sized(name: string, bytes: number): SkillFile {
  const head = `---\nname: ${name}\ndescription: A skill file of ${bytes} bytes\n---\n`;
  return { name, description: `A skill file of ${bytes} bytes`, raw: head + 'x'.repeat(bytes - head.length) };
}
/** Claude Code lists a skill file of 1,000,000 bytes, not one of 1,000,001. */
const FULL_SIZE = sized('full-size-notes', 1_000_000);
const OVERSIZE = sized('oversize-notes', 1_000_001);

/** Frontmatter that is not YAML: both hosts read an unquoted ": " as we do; a file broken otherwise Codex skips, Claude Code reads without frontmatter. */
const UNQUOTED_COLON: SkillFile = {
  name: 'unquoted-colon',
  description: 'Fill PDF forms: text fields and checkboxes',
  raw: '---\nname: unquoted-colon\ndescription: Fill PDF forms: text fields and checkboxes\n---\n# Forms\n',
};
const UNTERMINATED_QUOTE: SkillFile = {
  name: 'unterminated-quote',
  description: '',
  raw: '---\nname: unterminated-quote\ndescription: "Rotate the keys\n---\n# Keys\n',
};

/** Same-named copies in the other host's folders, and a skill only Codex reads. */
const DUPLICATE_CLAUDE_COPY: SkillFile = { name: 'invoice-ocr', description: 'The Claude Code folder copy of invoice-ocr' };
const DUPLICATE_CODEX_COPY: SkillFile = { name: 'invoice-ocr', description: 'The Codex folder copy of invoice-ocr' };
const CODEX_ONLY: SkillFile = { name: 'codex-only-notes', description: 'Notes only Codex reads' };

/** Entries (`- name: …` or `- name (frontmatter name): …`, continuation lines included) of a listing whose name is one of `names`. */
function entriesOf(listing: string, names: ReadonlySet<string>): string[] {
  const body = listing.slice(listing.indexOf('\n- ') + 1);
  return body.split(/\n(?=- )/).filter((entry) => names.has(/^- ([^:\s]+)[:\s]/.exec(entry)?.[1] ?? ''));
}

/** Codex's section without its own `.system` skills (and their root), which it installs itself. */
function withoutCodexSystemSkills(section: string): string {
  const system = /^- `(r\d+)` = `[^`]*\/\.codex\/skills\/\.system`$/m.exec(section)?.[1];
  if (system === undefined) return section;
  return section
    .split('\n')
    .filter((line) => !line.startsWith(`- \`${system}\` = `) && !line.includes(` (file: ${system}/`))
    .join('\n');
}

describe.skipIf(bins.claude === undefined || bins.codex === undefined)('list --host predicts what the host sends (same HOME)', () => {
  const stubs: RecordingServer[] = [];
  const claudeHome = installedHomes('claude-code');
  const codexHome = installedHomes('codex');
  afterAll(async () => {
    for (const stub of stubs) await stub.close();
  });

  it('list --host claude-code equals Claude Code’s listing of the user’s skills', async () => {
    const stub = await startAnthropicStub();
    stubs.push(stub);
    const home = await claudeHome([...RULED_SKILLS, FOLDER_NAMED, OVERSIZE, FULL_SIZE, UNQUOTED_COLON, UNTERMINATED_QUOTE], { index: false });
    // Codex folders Claude Code does not read: a same-named copy and a Codex-only skill.
    home.addSkills('.agents/skills', [DUPLICATE_CODEX_COPY, CODEX_ONLY]);
    const turn = await promptClaude(home, bins.claude!, stub, OFF_TOPIC);
    const sent = claudeSkillListing(turn.request);
    expect(sent).toBeDefined();
    const predicted = (await home.cli(['list', '--host', 'claude-code'])).stdout;
    const unwrapped = /^<system-reminder>\n([\s\S]*)\n<\/system-reminder>\n$/.exec(predicted)?.[1];
    expect(unwrapped).toBeDefined();
    const ours = new Set([...RULED_SKILLS, FOLDER_NAMED, OVERSIZE, FULL_SIZE, UNQUOTED_COLON, UNTERMINATED_QUOTE].map((skill) => skill.name));
    const header = sent!.slice(0, sent!.indexOf('\n- '));
    expect(unwrapped).toBe([header, ...entriesOf(sent!, ours)].join('\n'));
    // The rules were exercised: a cut description, when_to_use appended, the forbidden skill absent.
    expect(unwrapped).toContain('- invoice-ocr: Read scanned invoices - When the user has invoices');
    expect(unwrapped).toMatch(/- style-guide: [^\n]*…$/m);
    expect(unwrapped).not.toContain('deploy-staging');
    expect(unwrapped).toContain('- react-best-practices (vercel-react-best-practices): React performance rules');
    expect(unwrapped).toContain('- html-email: Lay out &lt;table&gt; emails for old clients - When the user sends an HTML email');
    expect(unwrapped).not.toContain(CODEX_ONLY.name);
    expect(unwrapped).toContain(`- ${FULL_SIZE.name}: `);
    expect(unwrapped).not.toContain(OVERSIZE.name);
    // Broken YAML: an unquoted ": " read as we do; otherwise no frontmatter, the body's first line its description.
    expect(unwrapped).toContain('- unquoted-colon: Fill PDF forms: text fields and checkboxes');
    expect(unwrapped).toContain('- unterminated-quote: Keys');
    expect(unwrapped).not.toContain(DUPLICATE_CODEX_COPY.description);
  });

  it('list --host codex equals Codex’s skills section', async () => {
    const stub = await startOpenAiStub();
    stubs.push(stub);
    const home = await codexHome(RULED_SKILLS, { index: false });
    // A Claude Code copy of one of Codex's names: it wins our merge, but Codex lists its own.
    home.addSkills('.claude/skills', [DUPLICATE_CLAUDE_COPY]);
    home.addSkills('.agents/skills', [UNQUOTED_COLON, UNTERMINATED_QUOTE]);
    const turn = await promptCodex(home, bins.codex!, stub, OFF_TOPIC);
    const sent = codexSkillsSection(turn.request);
    expect(sent).toBeDefined();
    const predicted = (await home.cli(['list', '--host', 'codex'])).stdout;
    expect(predicted).toBe(`${withoutCodexSystemSkills(sent!)}\n`);
    // The rules were exercised: a description cut as Codex cuts it, Claude Code's flag not Codex's rule.
    expect(predicted).toMatch(/- style-guide: [^\n]{1021}\.\.\. \(file: /);
    expect(predicted).toContain('- deploy-staging: ');
    expect(predicted).toContain('- invoice-ocr: Read scanned invoices (file: ');
    expect(predicted).not.toContain(DUPLICATE_CLAUDE_COPY.description);
    expect(predicted).toContain('- unquoted-colon: Fill PDF forms: text fields and checkboxes (file: ');
    expect(predicted).not.toContain(UNTERMINATED_QUOTE.name);
  });

  it('list --host codex numbers the skill roots in Codex’s order when skills sit in several folders', async () => {
    const stub = await startOpenAiStub();
    stubs.push(stub);
    // The user's `~/.agents/skills` (SKILLS), Codex's own folder, and the project's two folders.
    const home = await codexHome(SKILLS, { index: false });
    home.addSkills('.codex/skills', [{ name: 'codex-home-notes', description: 'Notes kept in the Codex folder' }]);
    home.addSkills('project/.codex/skills', [{ name: 'project-codex-notes', description: 'Notes kept in the project Codex folder' }]);
    home.addSkills('project/.agents/skills', [CODEX_ONLY]);
    const turn = await promptCodex(home, bins.codex!, stub, OFF_TOPIC);
    const sent = codexSkillsSection(turn.request);
    expect(sent?.match(/^- `r\d+` = /gm)).toHaveLength(5);
    expect((await home.cli(['list', '--host', 'codex'])).stdout).toBe(`${withoutCodexSystemSkills(sent!)}\n`);
  });
});
