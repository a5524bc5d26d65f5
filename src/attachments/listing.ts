/** The skill_listing text (SPEC §4): one line per skill, within a character budget derived from the context window. */
import { badOption } from '../errors.js';
import { offeredSkills } from '../load/invocation.js';
import type { Skill } from '../types.js';
import { positiveInteger } from '../util/option-checks.js';
import { truncateWithEllipsis } from '../util/text.js';
import type { AnnouncedSkill } from './messages.js';
import { neutralizeReminderText } from './reminder.js';

/** Longest description part (`description - whenToUse`) on one line, `…` included. */
const MAX_LISTING_DESCRIPTION_CHARS = 250;
/** Share of the context window the listing may use. */
const LISTING_CONTEXT_SHARE = 0.01;
const CHARS_PER_TOKEN = 4;
/** Budget when the context window is unknown. */
export const DEFAULT_LISTING_BUDGET_CHARS = 8_000;

export interface SkillListingOptions {
  /** The model's context window in tokens: the budget is 1% of it at 4 characters per token. @default unknown (8,000 characters) */
  readonly contextWindowTokens?: number | undefined;
  /** The budget in characters; wins over `contextWindowTokens`. */
  readonly budgetChars?: number | undefined;
  /** Invocation counts per name: over budget, the least-used skills lose their description first. @default none */
  readonly usage?: ReadonlyMap<string, number> | undefined;
}

export function resolveListingOptions({ contextWindowTokens, budgetChars, usage = new Map() }: SkillListingOptions = {}) {
  if (contextWindowTokens !== undefined) positiveInteger('contextWindowTokens', contextWindowTokens);
  if (budgetChars !== undefined) positiveInteger('budgetChars', budgetChars);
  if (!(usage instanceof Map)) throw badOption('usage', 'be a Map of name → count', usage);
  const budget =
    budgetChars ??
    (contextWindowTokens === undefined ? DEFAULT_LISTING_BUDGET_CHARS : Math.floor(contextWindowTokens * LISTING_CONTEXT_SHARE * CHARS_PER_TOKEN));
  if (budget <= 0) throw badOption('contextWindowTokens', 'leave a listing budget of at least 1 character', contextWindowTokens);
  return Object.freeze({ budgetChars: budget, usage: usage as ReadonlyMap<string, number> });
}

/** One listing line must stay one line: runs of whitespace (newlines included) become one space. */
function oneLine(text: string): string {
  return neutralizeReminderText(text).replace(/\s+/g, ' ').trim();
}

function fullDescription(skill: AnnouncedSkill): string {
  const description = oneLine(skill.description);
  const whenToUse = skill.whenToUse === undefined ? '' : oneLine(skill.whenToUse);
  return whenToUse === '' ? description : `${description} - ${whenToUse}`;
}

/** `- name: description - whenToUse` (that part cut to 250 characters), or `- name` when there is nothing to describe. */
export function formatSkillLine(skill: AnnouncedSkill): string {
  const name = oneLine(skill.name);
  const description = truncateWithEllipsis(fullDescription(skill), MAX_LISTING_DESCRIPTION_CHARS);
  return description === '' ? `- ${name}` : `- ${name}: ${description}`;
}

function shortenedNote(count: number): string {
  return `(${count} skill ${count === 1 ? 'description' : 'descriptions'} omitted to fit the listing budget)`;
}

function omittedNote(count: number): string {
  return `(${count} ${count === 1 ? 'skill' : 'skills'} not listed: even names alone exceed the listing budget)`;
}

export interface SkillListing {
  /** Lines and budget notes joined by `\n`; empty when there are no skills. */
  readonly content: string;
  /** Every name considered, after shadowing, in listing order. */
  readonly skillNames: readonly string[];
  /** Names listed without their description, for the budget. */
  readonly shortened: readonly string[];
  /** Names left out: even names alone did not fit. */
  readonly omitted: readonly string[];
  /** Names listed with their description. */
  readonly described: readonly string[];
  /** Names whose description part was cut to 250 characters. */
  readonly truncated: readonly string[];
  readonly budgetChars: number;
}

/** The first skill of each name, by `rank` (a stable sort: load order breaks ties). */
export function shadowByName(skills: readonly Skill[]): Skill[] {
  const winners = new Map<string, Skill>();
  for (const skill of [...skills].sort((a, b) => a.rank - b.rank)) if (!winners.has(skill.name)) winners.set(skill.name, skill);
  return [...winners.values()];
}

/**
 * The listing for `skills` within the budget. Over it, descriptions go first, least-used first
 * (ties: the lower-ranked skill), then names, last first; a note says what is missing. O(n log n).
 */
export function formatSkillListing(skills: readonly Skill[], options: SkillListingOptions = {}): SkillListing {
  const { budgetChars, usage } = resolveListingOptions(options);
  // A skill the host keeps from the model still shadows its name, and is never listed.
  const winners = offeredSkills(shadowByName(skills));
  const full = winners.map(formatSkillLine);
  const bare = winners.map((skill) => `- ${oneLine(skill.name)}`);
  const truncated = winners.filter((skill) => fullDescription(skill).length > MAX_LISTING_DESCRIPTION_CHARS).map((skill) => skill.name);

  const lines = [...full];
  // Sum of line lengths plus one `\n` between lines; notes add `\n` + their length.
  let linesChars = lines.reduce((sum, line) => sum + line.length, 0) + Math.max(0, lines.length - 1);
  const total = (shortenedCount: number, listedCount: number, omittedCount: number): number =>
    linesChars +
    (shortenedCount > 0 ? (listedCount > 0 ? 1 : 0) + shortenedNote(shortenedCount).length : 0) +
    (omittedCount > 0 ? (listedCount > 0 || shortenedCount > 0 ? 1 : 0) + omittedNote(omittedCount).length : 0);

  const shortenOrder = winners
    .map((skill, index) => ({ index, uses: usage.get(skill.name) ?? 0 }))
    .filter(({ index }) => full[index] !== bare[index])
    .sort((a, b) => a.uses - b.uses || b.index - a.index);

  const shortened = new Set<number>();
  for (const { index } of shortenOrder) {
    if (total(shortened.size, lines.length, 0) <= budgetChars) break;
    linesChars += (bare[index] as string).length - (lines[index] as string).length;
    lines[index] = bare[index] as string;
    shortened.add(index);
  }

  let omittedCount = 0;
  let listedShortened = shortened.size;
  while (lines.length > 0 && total(listedShortened, lines.length, omittedCount) > budgetChars) {
    const dropped = lines.pop() as string;
    if (shortened.has(lines.length)) listedShortened -= 1;
    linesChars -= dropped.length + (lines.length > 0 ? 1 : 0);
    omittedCount += 1;
  }

  const notes: string[] = [];
  if (listedShortened > 0) notes.push(shortenedNote(listedShortened));
  if (omittedCount > 0) notes.push(omittedNote(omittedCount));

  return Object.freeze({
    content: [...lines, ...notes].join('\n'),
    skillNames: winners.map((skill) => skill.name),
    shortened: winners.filter((_, index) => shortened.has(index) && index < lines.length).map((skill) => skill.name),
    omitted: winners.slice(lines.length).map((skill) => skill.name),
    described: winners.filter((_, index) => index < lines.length && !shortened.has(index)).map((skill) => skill.name),
    truncated,
    budgetChars,
  });
}
