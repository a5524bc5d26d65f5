/** The Skill tool (SPEC §4): a free-text `skill` name (no enum: the schema never changes with the catalog) and optional `args`. */
import { z } from 'zod';
import type { Skill } from '../types.js';
import type { InvocationLog } from './invocations.js';
import { isOfferedToModel } from '../load/invocation.js';
import { shadowByName } from './listing.js';
import { neutralizeReminderText } from './reminder.js';
import { suggestNames } from '../util/suggest.js';

export const SKILL_TOOL_NAME = 'Skill';

export const SKILL_TOOL_DESCRIPTION =
  'Load a skill: returns its full instructions, which you then follow. ' +
  'Available skills are announced in system reminders; pass the name exactly as listed.';

export const skillToolInputSchema = z.object({
  skill: z.string().describe('The skill name. E.g., "commit", "review-pr", or "pdf"'),
  args: z.string().optional().describe('Optional arguments for the skill'),
});

export type SkillToolInput = z.infer<typeof skillToolInputSchema>;

/** The input's JSON Schema (Anthropic `input_schema`, MCP), made from the zod schema, without `$schema`. */
export const skillToolJsonSchema = Object.freeze((({ $schema: _, ...schema }) => schema)(z.toJSONSchema(skillToolInputSchema))) as ObjectJsonSchema;

/** The shape tool APIs ask of an input schema. */
export interface ObjectJsonSchema {
  readonly type: 'object';
  readonly properties: Readonly<Record<string, unknown>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean;
}

export const skillToolDefinition = {
  name: SKILL_TOOL_NAME,
  description: SKILL_TOOL_DESCRIPTION,
  input_schema: skillToolJsonSchema,
} as const;

export interface SkillToolContext {
  /** The catalog (higher-ranked first; shadowing is applied again here). */
  readonly skills: readonly Skill[];
  readonly log: InvocationLog;
}

export type SkillToolResult =
  | { readonly isError: false; readonly content: string; readonly skill: Skill }
  | { readonly isError: true; readonly content: string };

const ARGUMENTS_PLACEHOLDER = '$ARGUMENTS';

/** The body with each `$ARGUMENTS` replaced by `args`, or, when it has none, `args` after it on an `ARGUMENTS:` line. */
export function applySkillArgs(body: string, args: string | undefined): string {
  if (args === undefined || args.trim() === '') return body;
  if (body.includes(ARGUMENTS_PLACEHOLDER)) return body.split(ARGUMENTS_PLACEHOLDER).join(args);
  return `${body.trimEnd()}\n\nARGUMENTS: ${args}`;
}

/** Exact name first (a leading `/` is accepted), then a case-insensitive match if it is unique. */
export function findSkillByName(skills: readonly Skill[], requested: string): Skill | undefined {
  const name = requested.trim().replace(/^\//, '');
  const exact = skills.find((skill) => skill.name === name);
  if (exact !== undefined) return exact;
  const lower = name.toLowerCase();
  const folded = skills.filter((skill) => skill.name.toLowerCase() === lower);
  return folded.length === 1 ? folded[0] : undefined;
}

export function invokeSkill(input: unknown, context: SkillToolContext): SkillToolResult {
  const parsed = skillToolInputSchema.safeParse(input);
  if (!parsed.success) {
    return {
      isError: true,
      content: `Invalid ${SKILL_TOOL_NAME} input: expected {"skill": string, "args"?: string}, got ${describeInput(input)}`,
    };
  }
  const { skill: requested, args } = parsed.data;
  const skills = shadowByName(context.skills);
  const skill = findSkillByName(skills, requested);
  if (skill === undefined) return { isError: true, content: unknownSkillMessage(requested, skills) };
  // As Claude Code's Skill tool: a skill its author kept from the model runs only when the user invokes it.
  if (!isOfferedToModel(skill)) return { isError: true, content: userOnlyMessage(skill) };

  const content = neutralizeReminderText(applySkillArgs(skill.body, args));
  context.log.record({ name: skill.name, source: skill.source, path: skill.path, args, content, at: Date.now() });
  return { isError: false, content, skill };
}

function describeInput(input: unknown): string {
  try {
    return JSON.stringify(input) ?? String(input);
  } catch {
    return String(input);
  }
}

/** The names of `skills` close to `requested` (a leading `/` ignored). */
export function closeSkillNames(requested: string, skills: readonly Skill[]): string[] {
  const names = skills.map((skill) => skill.name);
  return suggestNames(requested.trim().replace(/^\//, ''), names);
}

/** The refusal of a skill its author kept from the model, by this tool and MCP `read_skill`. */
export function userOnlyMessage(skill: Pick<Skill, 'name' | 'invocation'>): string {
  return `Skill "${neutralizeReminderText(skill.name)}" can only be invoked by the user (${skill.invocation?.reasons.join(', ') ?? ''}).`;
}

function unknownSkillMessage(requested: string, skills: readonly Skill[]): string {
  const suggestions = closeSkillNames(requested, skills);
  const head = `Unknown skill "${requested}".`;
  if (suggestions.length === 0) return `${head} Use a name from the skill listing.`;
  return `${head} Did you mean ${suggestions.map((name) => `"${name}"`).join(', ')}?`;
}
