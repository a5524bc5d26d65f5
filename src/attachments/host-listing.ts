/**
 * What a host really sends about skills, as opposed to the seed's listing (`listing.ts`): the
 * rules read from Claude Code and Codex themselves, as docs/hosts.md states them.
 */
import type { Skill } from '../types.js';
import { isListedByCodex, offeredSkills } from '../load/invocation.js';
import { within } from '../util/paths.js';
import { truncateWithEllipsis } from '../util/text.js';
import { neutralizeReminderText } from './reminder.js';

export interface HostListing {
  /** The text the host sends (Claude Code: the lines inside its reminder; Codex: the whole skills section). */
  readonly text: string;
  /** Names in the listing, in order. */
  readonly listed: readonly string[];
  /** Names listed without their full description (dropped or cut to fit the budget). */
  readonly shortened: readonly string[];
  /** Names left out entirely. */
  readonly omitted: readonly string[];
  readonly budget: { readonly unit: 'columns' | 'tokens' | 'characters'; readonly limit: number };
  /** Codex adds its own "How to use skills" text after the list, before the section's end (its prose, not reproduced in `text`). */
  readonly usageInstructions?: true;
}

const CLAUDE_CODE_MAX_DESCRIPTION_CHARS = 1536;
const CLAUDE_CODE_BUDGET_SHARE = 0.01;
const CLAUDE_CODE_WINDOW_TOKENS = 200_000;
const CLAUDE_CODE_LONG_WINDOW_TOKENS = 1_000_000;

/**
 * The models Claude Code 2.1.337 counts at 4 characters a token with a 200,000-token window (those before its
 * newer tokenizer: claude-3-*, opus 4.5 and 4.6, sonnet 4.0–4.6, haiku 4.5), as substrings of the lower-cased id.
 * Every other id, its default and unknown ones included, gets 3 characters and 1,000,000 tokens: seen in its
 * requests behind a stub base URL (opus 4.0 and 4.1 run as its default model there).
 */
const CLAUDE_CODE_OLDER_MODELS = /claude-opus-4-[56]|claude-sonnet-4(-[056]|(?!-\d(?!\d)))|claude-haiku-4-5|claude-3-/;
/** Its aliases, and the model it runs when none is set. */
const CLAUDE_CODE_ALIASES: Readonly<Record<string, string>> = {
  opus: 'claude-opus-5-5',
  sonnet: 'claude-sonnet-5-5',
  haiku: 'claude-haiku-5-5',
  fable: 'claude-fable-5-2',
};
const CLAUDE_CODE_DEFAULT_MODEL = 'claude-opus-5-5';

/**
 * Claude Code 2.1.337's own entries, listed after the user's and paid for out of the same budget,
 * each name with the columns its described line takes (measured from its request,
 * test/hosts/fixtures/claude-code-skill-listing.txt): bundled skills, always described, then
 * built-in commands, described only while room is left. A user's skill of the same name replaces one.
 */
export const CLAUDE_CODE_OWN_ENTRIES: ClaudeCodeOwnEntries = Object.freeze({
  bundled: Object.freeze({
    dataviz: 1447,
    'update-config': 707,
    'keybindings-help': 248,
    'code-review': 850,
    simplify: 188,
    'fewer-permission-prompts': 191,
    loop: 344,
    'claude-api': 1184,
    'workflow-authoring': 252,
    run: 368,
    'plugin-authoring': 275,
  }),
  commands: Object.freeze({ init: 67, 'security-review': 90 }),
});
export interface ClaudeCodeOwnEntries {
  readonly bundled: Readonly<Record<string, number>>;
  readonly commands: Readonly<Record<string, number>>;
}

export interface ClaudeCodeListingOptions {
  /** The model Claude Code runs (`ANTHROPIC_MODEL`); unset, its default. */
  readonly model?: string | undefined;
  /** A context window that wins over the model's. */
  readonly contextWindowTokens?: number | undefined;
  /** A budget in columns that wins over both (`SLASH_COMMAND_TOOL_CHAR_BUDGET`). */
  readonly budgetColumns?: number | undefined;
  /** How much each skill is used (Claude Code keeps a decayed count); more used keeps its description first. */
  readonly usage?: ReadonlyMap<string, number> | undefined;
  /** Its own entries sharing the budget. @default CLAUDE_CODE_OWN_ENTRIES */
  readonly own?: ClaudeCodeOwnEntries | undefined;
  /** Frontmatter texts as written, by skill name (the catalog trims them; Claude Code does not, and shows a frontmatter `name` beside its folder's). */
  readonly frontmatter?: ReadonlyMap<string, WrittenFrontmatter> | undefined;
}

/** A SKILL.md's frontmatter texts as Claude Code reads them: a `when_to_use` block scalar's final line break kept. */
export interface WrittenFrontmatter {
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly whenToUse?: string | undefined;
}

/** The listing budget in columns: 1% of the context window at the model's characters per token. */
export function claudeCodeBudget({ model, contextWindowTokens, budgetColumns }: ClaudeCodeListingOptions = {}): number {
  if (budgetColumns !== undefined) return budgetColumns;
  const id = (model ?? CLAUDE_CODE_DEFAULT_MODEL).toLowerCase();
  const base = id.replace(/\[1m\]$/, '');
  const resolved = Object.hasOwn(CLAUDE_CODE_ALIASES, base) ? CLAUDE_CODE_ALIASES[base]! : base;
  const older = CLAUDE_CODE_OLDER_MODELS.test(resolved);
  const window = contextWindowTokens ?? (id !== base || !older ? CLAUDE_CODE_LONG_WINDOW_TOKENS : CLAUDE_CODE_WINDOW_TOKENS);
  return Math.max(1, Math.floor(window * (older ? 4 : 3) * CLAUDE_CODE_BUDGET_SHARE));
}

// East Asian wide and fullwidth ranges, and emoji: two columns in a terminal-width count.
const WIDE =
  /[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{1F300}-\u{1F64F}\u{1F900}-\u{1F9FF}\u{20000}-\u{3FFFD}]/u;
const ZERO_WIDTH = /[\p{Mn}\p{Me}\p{Cf}\p{Default_Ignorable_Code_Point}]/u;

/** Columns `text` takes in a terminal (Claude Code measures its listing so). */
export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) width += ZERO_WIDTH.test(char) ? 0 : WIDE.test(char) ? 2 : 1;
  return width;
}

/** Characters Claude Code 2.1.337 shows as a space: control, format, private-use, unassigned and other invisible ones, line breaks among them. */
const CLAUDE_CODE_HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}\u2028\u2029\u2800]+/gu;
/** An emoji sequence, whose joiners and variation selectors it keeps. */
// biome-ignore lint/complexity/useRegexLiterals: TypeScript refuses the `v` flag in a literal below an ES2024 target.
const EMOJI = new RegExp('\\p{RGI_Emoji}', 'gv');

/** A frontmatter text as Claude Code 2.1.337 lists it: each run of hidden characters one space (but inside an emoji), `<` and `>` escaped. */
function claudeCodeText(text: string): string {
  const kept = new Set<number>();
  for (const match of text.matchAll(EMOJI)) for (let at = match.index; at < match.index + match[0].length; at++) kept.add(at);
  const shown = text.replace(CLAUDE_CODE_HIDDEN, (run, offset: number) => {
    let out = '';
    for (let at = 0; at < run.length; at++) out += kept.has(offset + at) ? run[at] : out.endsWith(' ') ? '' : ' ';
    return out;
  });
  return shown.replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function claudeCodeDescription(skill: Skill, written: WrittenFrontmatter = {}): string {
  // It appends only `when_to_use`: a camelCase `whenToUse` key is not read.
  const description = claudeCodeText(written.description ?? skill.description);
  const whenToUse = skill.whenToUse === undefined || skill.whenToUseKey === 'whenToUse' ? undefined : (written.whenToUse ?? skill.whenToUse);
  const text = whenToUse === undefined ? description : `${description} - ${claudeCodeText(whenToUse)}`;
  return truncateWithEllipsis(text, CLAUDE_CODE_MAX_DESCRIPTION_CHARS);
}

/**
 * The names of Claude Code 2.1.337's own commands and skills that are not in its listing (`help`, `release-notes`, …): a skill whose
 * frontmatter takes one of them is listed by its folder's name alone. Seen in its request: a skill per candidate
 * name, `zq-<name>/SKILL.md` with `name: <name>`, listed without `(<name>)` (API key, non-essential traffic off).
 */
const CLAUDE_CODE_COMMAND_NAMES: ReadonlySet<string> = new Set(
  [
    'add-dir agents auto-mode-setup autocompact background batch branch btw bug cd clear color compact config context copy debug deep-research',
    'diff doctor effort exit export fast feedback focus fork goal heapdump help hooks ide init insights keybindings list-agents login logout mcp',
    'memory mobile model output-style passes permissions plan plugin powerup pro-trial-expired recap release-notes reload-plugins reload-skills',
    'rename resume rewind sandbox scroll-speed security-review setup-bedrock setup-vertex skills status statusline stickers subtask tasks',
    'team-onboarding terminal-setup theme tui usage verify workflow-launch-exec workflows',
  ]
    .join(' ')
    .split(' '),
);

/** A name Claude Code shows in parentheses: letters, marks, digits, `_`, `:`, `.` and `-`, at most 256 characters. */
const CLAUDE_CODE_SHOWN_NAME = /^[\p{L}\p{M}\p{N}_:.-]{1,256}$/u;

/**
 * How Claude Code names each skill in its listing: `folder (frontmatter name)` when the two differ and the
 * frontmatter name would find this skill (no entry is named so, and no skill before it goes by it), else the name alone.
 */
function claudeCodeShownNames(skills: readonly Skill[], own: ClaudeCodeOwnEntries, frontmatter: ReadonlyMap<string, WrittenFrontmatter>): Map<string, string> {
  const named = new Set([...skills.map((skill) => skill.name), ...Object.keys(own.bundled), ...Object.keys(own.commands), ...CLAUDE_CODE_COMMAND_NAMES]);
  const goesBy = new Map<string, string>();
  for (const skill of skills) {
    const written = frontmatter.get(skill.name)?.name ?? skill.name;
    if (!goesBy.has(written)) goesBy.set(written, skill.name);
  }
  return new Map(
    skills.map((skill) => {
      const written = frontmatter.get(skill.name)?.name;
      const plain =
        written === undefined ||
        written === skill.name ||
        skill.name.endsWith(`:${written}`) ||
        !CLAUDE_CODE_SHOWN_NAME.test(written) ||
        named.has(written) ||
        goesBy.get(written) !== skill.name;
      return [skill.name, plain ? skill.name : `${skill.name} (${written})`];
    }),
  );
}

export function claudeCodeListing(skills: readonly Skill[], options: ClaudeCodeListingOptions = {}): HostListing {
  const budget = { unit: 'columns' as const, limit: claudeCodeBudget(options) };
  const own = options.own ?? CLAUDE_CODE_OWN_ENTRIES;
  // Its own bundled skills come after the others in the request it sends.
  const ordered = offeredSkills(skills).toSorted((a, b) => Number(a.source === 'bundled') - Number(b.source === 'bundled'));
  // Every skill it loads, offered to the model or not, can hold the name a frontmatter name would find.
  const frontmatter = options.frontmatter ?? new Map<string, WrittenFrontmatter>();
  const shownNames = claudeCodeShownNames(skills, own, frontmatter);
  const names = ordered.map((skill) => neutralizeReminderText(shownNames.get(skill.name) ?? skill.name));
  const full = ordered.map((skill, i) => `- ${names[i]}: ${neutralizeReminderText(claudeCodeDescription(skill, frontmatter.get(skill.name)))}`);
  const bare = names.map((name) => `- ${name}`);
  const listed = ordered.map((skill) => skill.name);
  const ownLeft = (entries: Readonly<Record<string, number>>) => Object.entries(entries).filter(([name]) => !listed.includes(name));
  const [bundled, commands] = [ownLeft(own.bundled), ownLeft(own.commands)];
  const columns = (entries: readonly (readonly [string, number])[]) => entries.reduce((sum, [, width]) => sum + width, 0);
  const separators = Math.max(0, ordered.length + bundled.length + commands.length - 1);
  const fullWidth = full.reduce((sum, line) => sum + displayWidth(line), 0) + columns(bundled) + columns(commands);
  if (fullWidth + separators <= budget.limit) {
    return { text: full.join('\n'), listed, shortened: [], omitted: [], budget };
  }
  // Over budget every entry is a bare name but its bundled skills; the rest get their description back most used first, each while it fits.
  const kept = new Set(ordered.flatMap((skill, i) => (skill.source === 'bundled' ? [i] : [])));
  const commandNames = commands.reduce((sum, [name]) => sum + displayWidth(`- ${name}`), 0);
  const base = ordered.reduce((sum, _, i) => sum + displayWidth(kept.has(i) ? full[i]! : bare[i]!), 0) + columns(bundled) + commandNames;
  let room = budget.limit - separators - base;
  const usage = options.usage ?? new Map<string, number>();
  const byUse = ordered.map((skill, i) => ({ i, uses: usage.get(skill.name) ?? 0 })).filter(({ i }) => !kept.has(i));
  byUse.sort((a, b) => b.uses - a.uses);
  for (const { i } of byUse) {
    const extra = displayWidth(full[i]!) - displayWidth(bare[i]!);
    if (extra > room) continue;
    kept.add(i);
    room -= extra;
  }
  return {
    text: ordered.map((_, i) => (kept.has(i) ? full[i] : bare[i])).join('\n'),
    listed,
    shortened: ordered.filter((_, i) => !kept.has(i)).map((skill) => skill.name),
    omitted: [],
    budget,
  };
}

const CODEX_SCOPES = ['system', 'admin', 'repo', 'user'] as const;
export type CodexScope = (typeof CODEX_SCOPES)[number];

/** A folder Codex reads skills from, in the order Codex lists its roots. */
export interface CodexRoot {
  readonly dir: string;
  readonly scope: CodexScope;
}

export interface CodexListingOptions {
  /** A context window that wins over all else (`--context-window`). */
  readonly contextWindowTokens?: number | undefined;
  /** The model Codex runs (`model` in its config.toml); unset or not in its catalog, its fallback. */
  readonly model?: string | undefined;
  /** `model_context_window` from its config.toml: Codex caps it at the model's largest window. */
  readonly configuredWindowTokens?: number | undefined;
  /** The skill roots; a skill outside all of them is shown with its full path, as user scope. */
  readonly roots: readonly CodexRoot[];
  /** A root whose skills pay for their lines but are left out of the result (Codex's own, which it installs itself). */
  readonly unprintedRoot?: string | undefined;
}

const CODEX_OPEN = '<skills_instructions>';
const CODEX_CLOSE = '</skills_instructions>';
const CODEX_INTRO =
  'A skill is a set of local instructions to follow that is stored in a `SKILL.md` file. Below is the list of skills that can be used. Each entry includes a name, description, and a short path that can be expanded into an absolute path using the skill roots table.';
/**
 * Codex 0.171.0's model catalog (bundled in its binary), where it differs from its fallback for an
 * id it does not know (a 272,000-token window, at most 272,000, no usage block): each model's window,
 * the most `model_context_window` may raise it to, and whether Codex adds its own "How to use
 * skills" text after the list. Matched on the exact id.
 */
interface CodexModel {
  readonly window: number;
  readonly max: number;
  readonly usageInstructions: boolean;
}
const CODEX_FALLBACK_MODEL: CodexModel = { window: 272_000, max: 272_000, usageInstructions: false };
const CODEX_LONG_MODEL: CodexModel = { window: 500_000, max: 872_000, usageInstructions: false };
const CODEX_RAISABLE_MODEL: CodexModel = { window: 272_000, max: 872_000, usageInstructions: false };
const CODEX_MODELS: Readonly<Record<string, CodexModel>> = {
  'gpt-5.5': { window: 272_000, max: 272_000, usageInstructions: true },
  'gpt-daybreak-red-latest': { window: 372_000, max: 372_000, usageInstructions: false },
  'gpt-6.2-sol': CODEX_LONG_MODEL,
  'gpt-6.1-sol': CODEX_LONG_MODEL,
  'gpt-6.1-terra': CODEX_LONG_MODEL,
  ...Object.fromEntries(
    [
      'gpt-6.2-astra',
      'gpt-6-astra',
      'gpt-6-sol',
      'gpt-6-luna',
      'gpt-5.6-sol',
      'gpt-5.6-terra',
      'gpt-5.6-luna',
      'gpt-daybreak-blue-latest',
      'codex-auto-review',
    ].map((id) => [id, CODEX_RAISABLE_MODEL]),
  ),
};

function codexModel(model: string | undefined): CodexModel {
  return model !== undefined && Object.hasOwn(CODEX_MODELS, model) ? CODEX_MODELS[model]! : CODEX_FALLBACK_MODEL;
}

/** The window Codex sizes its skills budget by: `--context-window`, else its config's (capped at the model's largest), else the model's. */
export function codexContextWindow({
  contextWindowTokens,
  model,
  configuredWindowTokens,
}: Pick<CodexListingOptions, 'contextWindowTokens' | 'model' | 'configuredWindowTokens'>): number {
  if (contextWindowTokens !== undefined) return contextWindowTokens;
  const known = codexModel(model);
  return configuredWindowTokens === undefined ? known.window : Math.min(configuredWindowTokens, known.max);
}
const CODEX_CONTEXT_PERCENT = 2;
/**
 * Codex charges its skill roots table to the same budget, as ceil((B - this) / 4) tokens for B bytes
 * of root lines (each with its line break), never below 0: fitted to its requests with root paths
 * of four lengths (docs/hosts.md).
 */
const CODEX_ROOTS_TABLE_FREE_BYTES = 142;
/** Codex cuts a longer description to this many characters, the last three `...` (seen in its request). */
const CODEX_MAX_DESCRIPTION_CHARS = 1024;

/** The description on one line (Codex puts a space for each line break), cut as Codex cuts it. */
function codexDescription(text: string): string[] {
  const chars = [...text.replace(/\r\n|\r|\n/g, ' ')];
  return chars.length <= CODEX_MAX_DESCRIPTION_CHARS ? chars : [...chars.slice(0, CODEX_MAX_DESCRIPTION_CHARS - 3), '.', '.', '.'];
}

export function codexSkillsSection(skills: readonly Skill[], options: CodexListingOptions): HostListing {
  const window = codexContextWindow(options);
  // 2% of the window in tokens of 4 UTF-8 bytes, for the roots table and the skill lines.
  const budget = { unit: 'tokens' as const, limit: Math.max(1, Math.floor((window * CODEX_CONTEXT_PERCENT) / 100)) };
  const cost = (text: string): number => Math.ceil(Buffer.byteLength(text, 'utf8') / 4);

  const placed = skills.filter(isListedByCodex).map((skill) => {
    const root = options.roots.filter((candidate) => within(skill.path, candidate.dir)).sort((a, b) => b.dir.length - a.dir.length)[0];
    return { skill, root };
  });
  const rank = (scope: CodexScope | undefined): number => CODEX_SCOPES.indexOf(scope ?? 'user');
  placed.sort(
    (a, b) =>
      rank(a.root?.scope) - rank(b.root?.scope) ||
      (a.skill.name < b.skill.name ? -1 : a.skill.name > b.skill.name ? 1 : 0) ||
      (a.skill.path < b.skill.path ? -1 : a.skill.path > b.skill.path ? 1 : 0),
  );
  const used = options.roots.filter((root) => placed.some((entry) => entry.root === root));
  const aliasOf = new Map(used.map((root, i) => [root, `r${i}`]));
  const rootLines = used.map((root, i) => `- \`r${i}\` = \`${neutralizeReminderText(root.dir)}\``);
  const entries = placed.map(({ skill, root }) => ({
    name: neutralizeReminderText(skill.name),
    description: codexDescription(neutralizeReminderText(skill.description)),
    path: neutralizeReminderText(root === undefined ? skill.path : `${aliasOf.get(root)}/${skill.path.slice(root.dir.replace(/\/$/, '').length + 1)}`),
  }));
  const line = (entry: (typeof entries)[number], chars: number): string =>
    chars === 0 ? `- ${entry.name}: (file: ${entry.path})` : `- ${entry.name}: ${entry.description.slice(0, chars).join('')} (file: ${entry.path})`;
  const lineCost = (text: string): number => cost(`${text}\n`);

  const rootsBytes = rootLines.reduce((sum, text) => sum + Buffer.byteLength(`${text}\n`, 'utf8'), 0);
  const limit = budget.limit - Math.max(0, Math.ceil((rootsBytes - CODEX_ROOTS_TABLE_FREE_BYTES) / 4));
  const allocation = entries.map((entry) => entry.description.length);
  const omitted = new Set<number>();
  const fullCost = entries.reduce((sum, entry, i) => sum + lineCost(line(entry, allocation[i]!)), 0);
  if (fullCost > limit) {
    const minimum = entries.map((entry) => lineCost(line(entry, 0)));
    const minimumCost = minimum.reduce((sum, value) => sum + value, 0);
    allocation.fill(0);
    if (minimumCost <= limit) {
      // Description room handed out one character at a time, round-robin, as Codex does.
      let room = limit - minimumCost;
      const current = [...minimum];
      for (let changed = true; changed; ) {
        changed = false;
        entries.forEach((entry, i) => {
          if (allocation[i]! >= entry.description.length) return;
          const next = lineCost(line(entry, allocation[i]! + 1));
          if (next - current[i]! > room) return;
          room -= next - current[i]!;
          current[i] = next;
          allocation[i]! += 1;
          changed = true;
        });
      }
    } else {
      // Names and paths only, each while it fits; a skill that does not is left out, the scan goes on.
      let spent = 0;
      minimum.forEach((value, i) => {
        if (spent + value > limit) omitted.add(i);
        else spent += value;
      });
    }
  }
  const unprinted = (i: number): boolean => placed[i]!.root !== undefined && placed[i]!.root!.dir === options.unprintedRoot;
  const keptIndexes = entries.map((_, i) => i).filter((i) => !omitted.has(i) && !unprinted(i));
  const lines = keptIndexes.map((i) => line(entries[i]!, allocation[i]!));
  const printedRoots = rootLines.filter((_, i) => used[i]!.dir !== options.unprintedRoot);
  const text = [
    CODEX_OPEN,
    '## Skills',
    CODEX_INTRO,
    ...(printedRoots.length === 0 ? [] : ['### Skill roots', ...printedRoots]),
    '### Available skills',
    ...lines,
    CODEX_CLOSE,
  ].join('\n');
  return {
    ...(codexModel(options.model).usageInstructions ? { usageInstructions: true } : {}),
    text: entries.every((_, i) => unprinted(i)) ? '' : text,
    listed: keptIndexes.map((i) => placed[i]!.skill.name),
    shortened: keptIndexes.filter((i) => allocation[i]! < entries[i]!.description.length).map((i) => placed[i]!.skill.name),
    omitted: [...omitted].filter((i) => !unprinted(i)).map((i) => placed[i]!.skill.name),
    budget,
  };
}
