import { EFFORTS, type Diagnostic, type Effort, type SkillInvocation } from '../types.js';
import { isRecord } from '../util/json-file.js';
import { boundedJson } from './bounded-json.js';
import { invocationOf, specProblems, type CodexPolicy } from './invocation.js';
import { diagnostic, nameProblem, type SkillLimits } from './skill.js';
import { capChars } from '../util/text.js';

/** A YAML scalar as text: a string as is, a finite number or a boolean as written, a valid date in ISO form; undefined for anything else. */
function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'boolean') return String(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  return undefined;
}

/** Text fields accept a scalar or a list of scalars (joined), so a YAML slip never crashes. */
function fieldText(value: unknown): string | undefined {
  if (!Array.isArray(value)) return scalarText(value);
  const items = value.map(scalarText);
  return items.every((item) => item !== undefined) ? items.join(', ') : undefined;
}

/** `effort` in any case and with spaces around it; undefined when it is not one of {@link EFFORTS}. */
function effortOf(value: unknown): Effort | undefined {
  if (typeof value !== 'string') return undefined;
  const effort = value.trim().toLowerCase();
  return (EFFORTS as readonly string[]).includes(effort) ? (effort as Effort) : undefined;
}

export interface FieldContext {
  /** Where the fields came from (a file, or `file:line` for a tools line). */
  readonly path: string;
  /** Name used when the fields have none. */
  readonly defaultName: string;
  readonly limits: SkillLimits;
  /** Used, with a warning, when `description` is missing or empty (a file's first paragraph); without it that is an error. */
  readonly fallbackDescription?: string | undefined;
  /** The folder of a `<dir>/<skill>/SKILL.md` file: the Agent Skills spec's limits are checked (warnings). */
  readonly specFolder?: string | undefined;
  /** Codex's per-skill policy from `agents/openai.yaml` beside the file, when there is one. */
  readonly codexPolicy?: CodexPolicy | undefined;
  /** Keep `defaultName` whatever `name` says (Claude Code's own folders); the spec's warning still names both. */
  readonly nameFromFolder?: boolean | undefined;
}

interface ValidFields {
  readonly name: string;
  readonly description: string;
  readonly whenToUse: string | undefined;
  readonly whenToUseKey: 'when_to_use' | 'whenToUse';
  /** From `tags`, `keywords`, `aliases` and `triggers`; undefined when there are none. */
  readonly keywords: readonly string[] | undefined;
  readonly effort: Effort | undefined;
  readonly hooks: unknown;
  readonly invocation: SkillInvocation | undefined;
}

/** Fields listing words for search (a list, or text with commas), as are the values of the spec's `metadata` mapping. */
const KEYWORD_FIELDS = ['tags', 'keywords', 'aliases', 'triggers'] as const;
/** Most keywords kept per skill; more are dropped with a warning. */
const MAX_KEYWORDS = 64;

export interface FieldsResult {
  /** Undefined when a problem of `error` severity keeps the skill from loading. */
  readonly fields: ValidFields | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

export function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? typeof value;
}

/** Deeper `hooks` are dropped: real hook settings nest three or four levels. */
const MAX_HOOKS_DEPTH = 32;

function isMissing(value: unknown): boolean {
  return value === undefined || value === null;
}

/** Validates and coerces one skill's metadata (frontmatter, a tools line, an MCP registration): the one home of these rules. Never throws. */
export function validateFields(raw: Readonly<Record<string, unknown>>, context: FieldContext): FieldsResult {
  const { path, limits } = context;
  const diagnostics: Diagnostic[] = [];
  const fail = (code: Diagnostic['code'], message: string): FieldsResult => ({
    fields: undefined,
    diagnostics: [...diagnostics, diagnostic(code, path, message)],
  });

  let name = context.defaultName;
  if (!isMissing(raw['name'])) {
    const parsed = scalarText(raw['name']);
    if (parsed === undefined) return fail('bad-field', `\`name\` must be text, got ${describeValue(raw['name'])}`);
    if (parsed.trim() !== '') name = parsed.trim();
  }
  const written = name;
  if (context.nameFromFolder === true) name = context.defaultName;
  const badName = nameProblem(name, limits);
  if (badName !== undefined) return fail('bad-field', badName);

  const capText = (field: string, value: string): string => {
    if (value.length <= limits.maxDescriptionChars) return value;
    diagnostics.push(diagnostic('too-large', path, `\`${field}\` is ${value.length} characters; cut to ${limits.maxDescriptionChars}`, 'warning'));
    return capChars(value, limits.maxDescriptionChars);
  };

  const rawDescription = raw['description'];
  const parsedDescription = isMissing(rawDescription) ? '' : fieldText(rawDescription);
  if (parsedDescription === undefined) return fail('bad-field', `\`description\` must be text, got ${describeValue(rawDescription)}`);
  let trimmedDescription = parsedDescription.trim();
  if (trimmedDescription === '') {
    const problem = isMissing(rawDescription) ? '`description` is missing' : '`description` is empty';
    const fallback = context.fallbackDescription?.trim() ?? '';
    if (fallback === '') return fail('missing-description', problem);
    diagnostics.push(diagnostic('missing-description', path, `${problem}; the body's first paragraph is used instead, as Claude Code does`, 'warning'));
    trimmedDescription = fallback;
  }
  const description = capText('description', trimmedDescription);

  // Claude Code reads only `when_to_use`, so it wins when both are set.
  const whenKey = isMissing(raw['when_to_use']) ? 'whenToUse' : 'when_to_use';
  const rawWhen = raw[whenKey];
  const parsedWhen = isMissing(rawWhen) ? '' : fieldText(rawWhen)?.trim();
  if (parsedWhen === undefined)
    diagnostics.push(diagnostic('bad-field', path, `\`${whenKey}\` must be text, got ${describeValue(rawWhen)}; ignored`, 'warning'));
  const whenToUse = parsedWhen ? capText(whenKey, parsedWhen) : undefined;

  const keywords: string[] = [];
  const metadata = isRecord(raw['metadata']) ? Object.entries(raw['metadata']).map(([key, value]) => [`metadata.${key}`, value] as const) : [];
  for (const [key, value] of [...KEYWORD_FIELDS.map((key) => [key, raw[key]] as const), ...metadata]) {
    if (isMissing(value)) continue;
    const items = Array.isArray(value) ? value : [value];
    const parsed = items.map(scalarText);
    if (!parsed.every((item) => item !== undefined)) {
      // `metadata` is free-form: a value that is not text is simply not searched.
      if (key.startsWith('metadata.')) continue;
      diagnostics.push(diagnostic('bad-field', path, `\`${key}\` must be text or a list of text, got ${describeValue(value)}; ignored`, 'warning'));
      continue;
    }
    for (const item of parsed) for (const word of item.split(',')) if (word.trim() !== '') keywords.push(capChars(word.trim(), 100));
  }
  if (keywords.length > MAX_KEYWORDS) {
    diagnostics.push(diagnostic('too-large', path, `${keywords.length} tags/keywords/aliases/triggers; the first ${MAX_KEYWORDS} are kept`, 'warning'));
    keywords.length = MAX_KEYWORDS;
  }

  const parsedEffort = effortOf(raw['effort']);
  if (!isMissing(raw['effort']) && parsedEffort === undefined) {
    diagnostics.push(
      diagnostic('bad-effort', path, `\`effort\` must be one of ${EFFORTS.join(', ')}, got ${describeValue(raw['effort'])}; ignored`, 'warning'),
    );
  }

  // Kept as a plain copy made under a budget: never the parser's tree, whose aliases are shared.
  let hooks: unknown;
  if (!isMissing(raw['hooks'])) {
    const bounded = boundedJson(raw['hooks'], { maxChars: limits.maxHooksJsonChars, maxDepth: MAX_HOOKS_DEPTH });
    if (bounded.ok) hooks = JSON.parse(bounded.json);
    else {
      const why =
        bounded.problem === 'too-deep'
          ? `nests deeper than ${MAX_HOOKS_DEPTH} levels`
          : `is larger than ${limits.maxHooksJsonChars} characters as JSON (YAML aliases count once per use)`;
      diagnostics.push(diagnostic('too-large', path, `\`hooks\` ${why}; ignored`, 'warning'));
    }
  }
  const invocation = invocationOf(raw, context.codexPolicy);
  if (context.specFolder !== undefined) {
    for (const problem of specProblems({ name: written, description: trimmedDescription, folder: context.specFolder })) {
      const named = written === name ? '' : `; Claude Code names it ${JSON.stringify(name)}`;
      diagnostics.push(diagnostic('bad-field', path, `${problem}${problem.includes('its folder') ? named : ''}`, 'warning'));
    }
  }
  return {
    fields: {
      name,
      description,
      whenToUse,
      whenToUseKey: whenKey,
      keywords: keywords.length === 0 ? undefined : keywords,
      effort: parsedEffort,
      hooks,
      invocation,
    },
    diagnostics,
  };
}
