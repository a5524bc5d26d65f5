/**
 * What a host really sends about skills, as opposed to the seed's listing (`listing.ts`): the
 * rules read from Claude Code and Codex themselves, as docs/hosts.md states them.
 */
import type { Skill } from '../types.js';
import { isListedByCodex, offeredSkills } from '../load/invocation.js';
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
}

const CLAUDE_CODE_MAX_DESCRIPTION_CHARS = 1536;
const CLAUDE_CODE_DEFAULT_CONTEXT_TOKENS = 200_000;
const CLAUDE_CODE_BUDGET_SHARE = 0.01;
const CLAUDE_CODE_CHARS_PER_TOKEN = 4;

export interface ClaudeCodeListingOptions {
  readonly contextWindowTokens?: number | undefined;
  /** How much each skill is used (Claude Code keeps a decayed count); more used keeps its description first. */
  readonly usage?: ReadonlyMap<string, number> | undefined;
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

function claudeCodeDescription(skill: Skill): string {
  const text = skill.whenToUse === undefined ? skill.description : `${skill.description} - ${skill.whenToUse}`;
  return truncateWithEllipsis(text, CLAUDE_CODE_MAX_DESCRIPTION_CHARS);
}

export function claudeCodeListing(skills: readonly Skill[], options: ClaudeCodeListingOptions = {}): HostListing {
  const window = options.contextWindowTokens ?? CLAUDE_CODE_DEFAULT_CONTEXT_TOKENS;
  const limit = Math.max(1, Math.floor(window * CLAUDE_CODE_CHARS_PER_TOKEN * CLAUDE_CODE_BUDGET_SHARE));
  const budget = { unit: 'columns' as const, limit };
  // Its own bundled skills come after the others in the request it sends.
  const ordered = offeredSkills(skills).toSorted((a, b) => Number(a.source === 'bundled') - Number(b.source === 'bundled'));
  const names = ordered.map((skill) => neutralizeReminderText(skill.name));
  const full = ordered.map((skill, i) => `- ${names[i]}: ${neutralizeReminderText(claudeCodeDescription(skill))}`);
  const bare = names.map((name) => `- ${name}`);
  const separators = Math.max(0, ordered.length - 1);
  const listed = ordered.map((skill) => skill.name);
  if (full.reduce((sum, line) => sum + displayWidth(line), 0) + separators <= limit) {
    return { text: full.join('\n'), listed, shortened: [], omitted: [], budget };
  }
  const kept = new Set(ordered.flatMap((skill, i) => (skill.source === 'bundled' ? [i] : [])));
  let room = limit - separators - ordered.reduce((sum, _, i) => sum + displayWidth(kept.has(i) ? full[i]! : bare[i]!), 0);
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
type CodexScope = (typeof CODEX_SCOPES)[number];

/** A folder Codex reads skills from, in the order Codex lists its roots. */
export interface CodexRoot {
  readonly dir: string;
  readonly scope: CodexScope;
}

export interface CodexListingOptions {
  readonly contextWindowTokens?: number | undefined;
  /** The skill roots; a skill outside all of them is shown with its full path, as user scope. */
  readonly roots: readonly CodexRoot[];
}

const CODEX_OPEN = '<skills_instructions>';
const CODEX_CLOSE = '</skills_instructions>';
const CODEX_INTRO =
  'A skill is a set of local instructions to follow that is stored in a `SKILL.md` file. Below is the list of skills that can be used. Each entry includes a name, description, and a short path that can be expanded into an absolute path using the skill roots table.';
const CODEX_DEFAULT_BUDGET_CHARS = 8000;
/** Codex cuts a longer description to this many characters, the last three `...` (seen in its request). */
const CODEX_MAX_DESCRIPTION_CHARS = 1024;
const CODEX_CONTEXT_PERCENT = 2;

function codexDescription(text: string): string[] {
  const chars = [...text];
  return chars.length <= CODEX_MAX_DESCRIPTION_CHARS ? chars : [...chars.slice(0, CODEX_MAX_DESCRIPTION_CHARS - 3), '.', '.', '.'];
}

function inside(path: string, dir: string): boolean {
  return path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

export function codexSkillsSection(skills: readonly Skill[], options: CodexListingOptions): HostListing {
  const window = options.contextWindowTokens;
  const budget =
    window === undefined
      ? { unit: 'characters' as const, limit: CODEX_DEFAULT_BUDGET_CHARS }
      : { unit: 'tokens' as const, limit: Math.max(1, Math.floor((window * CODEX_CONTEXT_PERCENT) / 100)) };
  const cost = (text: string): number => (budget.unit === 'tokens' ? Math.ceil(Buffer.byteLength(text, 'utf8') / 4) : [...text].length);

  const placed = skills.filter(isListedByCodex).map((skill) => {
    const root = options.roots.filter((candidate) => inside(skill.path, candidate.dir)).sort((a, b) => b.dir.length - a.dir.length)[0];
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

  // The roots table is paid for out of the same budget.
  const limit = Math.max(0, budget.limit - (rootLines.length === 0 ? 0 : cost(`### Skill roots\n${rootLines.join('\n')}\n`)));
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
  const keptIndexes = entries.map((_, i) => i).filter((i) => !omitted.has(i));
  const lines = keptIndexes.map((i) => line(entries[i]!, allocation[i]!));
  const text = [
    CODEX_OPEN,
    '## Skills',
    CODEX_INTRO,
    ...(rootLines.length === 0 ? [] : ['### Skill roots', ...rootLines]),
    '### Available skills',
    ...lines,
    CODEX_CLOSE,
  ].join('\n');
  return {
    text: entries.length === 0 ? '' : text,
    listed: keptIndexes.map((i) => placed[i]!.skill.name),
    shortened: keptIndexes.filter((i) => allocation[i]! < entries[i]!.description.length).map((i) => placed[i]!.skill.name),
    omitted: [...omitted].map((i) => placed[i]!.skill.name),
    budget,
  };
}
