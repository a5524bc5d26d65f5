import type { Diagnostic, Skill } from '../types.js';
import { describeValue, validateFields } from './fields.js';
import { readFrontmatterLines } from './lenient-frontmatter.js';
import { FRONTMATTER_ALLOWANCE } from './read-file.js';
import { matter, yamlProblem } from './yaml.js';
import type { CodexPolicy } from './invocation.js';
import { DEFAULT_SKILL_LIMITS, buildSkill, capUtf8, diagnostic, firstParagraph, type SkillLimits, type SkillOrigin } from './skill.js';

export interface ParseContext extends SkillOrigin {
  /** Name used when the frontmatter has none (folder name, file base name, or `folder:name`). */
  readonly defaultName: string;
  readonly limits?: SkillLimits;
  /** The file was longer than what was read: the body is known to be cut. */
  readonly truncated?: boolean;
  /** The folder of a `<dir>/<skill>/SKILL.md` file, whose name the Agent Skills spec checks. */
  readonly specFolder?: string | undefined;
  /** Codex's policy from `agents/openai.yaml` beside the file. */
  readonly codexPolicy?: CodexPolicy | undefined;
  /** The skill keeps `defaultName` (its folder) whatever `name` says, as Claude Code names the skills of its folders. */
  readonly nameFromFolder?: boolean;
  /** Without a description, use the body's first paragraph (with a warning), as Claude Code does. @default true */
  readonly describeFromBody?: boolean;
}

export interface ParseResult {
  /** Undefined when the file has an error-severity problem. */
  readonly skill: Skill | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

class RefusedEngine extends Error {}

/** js-yaml's count starts after the opening `---`: the frontmatter's first line is the file's second. */
const FRONTMATTER_YAML = { firstLine: 2, column: false } as const;

function refuse(language: string) {
  return (): never => {
    throw new RefusedEngine(`\`---${language}\` frontmatter is never evaluated; write the frontmatter in YAML`);
  };
}

/** Engines that refuse executable frontmatter (`---js`); an options object also keeps gray-matter from caching every input. */
const MATTER_OPTIONS = Object.freeze({
  engines: {
    javascript: refuse('js'),
    js: refuse('js'),
    coffee: refuse('coffee'),
    coffeescript: refuse('coffee'),
    cson: refuse('coffee'),
  },
});

/** One skill file's text as a Skill (its body kept, not indexed) and diagnostics (`error`: not loaded; `warning`: loaded with a fix-up). Never throws. */
export function parseSkillFile(source: string, context: ParseContext): ParseResult {
  const limits = context.limits ?? DEFAULT_SKILL_LIMITS;
  const { path } = context;
  const fail = (code: Diagnostic['code'], message: string): ParseResult => ({
    skill: undefined,
    diagnostics: [diagnostic(code, path, message)],
  });

  const input = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  if (/^---(?!-)[^\n]*\n/.test(input) && !input.slice(3).includes('\n---')) {
    if (context.truncated === true) {
      const limit = limits.maxBodyBytes + FRONTMATTER_ALLOWANCE;
      return fail(
        'too-large',
        `frontmatter is too large: no closing \`---\` in the first ${limit} bytes (the body limit plus ${FRONTMATTER_ALLOWANCE} for frontmatter)`,
      );
    }
    return fail('bad-yaml', 'frontmatter starts with `---` but is never closed');
  }
  let data: unknown;
  let body: string;
  const diagnostics: Diagnostic[] = [];
  try {
    const parsed = matter()(input, MATTER_OPTIONS);
    data = parsed.data;
    body = parsed.content;
    const tabbed = tabIndentedLine(input);
    if (tabbed !== undefined) {
      const problem = `frontmatter line ${tabbed} is indented with a tab, which YAML forbids; read with the tab not counted as indentation (so a key there is not nested under the one above it): indent with spaces`;
      diagnostics.push(diagnostic('bad-yaml', path, problem, 'warning'));
    }
  } catch (error) {
    if (error instanceof RefusedEngine) return fail('bad-yaml', error.message);
    // Usually an unquoted ": " in a value: read the fields line by line when that finds a description.
    const recovered = /^---[ \t]*\r?\n/.test(input) ? readFrontmatterLines(input) : undefined;
    if (recovered?.fields['description'] === undefined) return fail('bad-yaml', `frontmatter is not valid YAML: ${yamlProblem(error, FRONTMATTER_YAML)}`);
    data = recovered.fields;
    body = recovered.body;
    const [line] = recovered.unquotedColonLines;
    // Both hosts read an unquoted ": " as we do; other broken YAML they do not (docs/hosts.md).
    const [problem, hosts] =
      line === undefined
        ? [yamlProblem(error, FRONTMATTER_YAML), 'Codex skips this file and Claude Code reads none of its frontmatter: fix the YAML']
        : [`line ${line} has an unquoted ": " in a value`, 'quote such values'];
    diagnostics.push(
      diagnostic('bad-yaml', path, `frontmatter is not valid YAML: ${problem}; read as plain \`key: value\` lines instead (${hosts})`, 'warning'),
    );
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return fail('bad-yaml', `frontmatter must be a mapping of fields, got ${describeValue(data)}`);
  }

  const checked = validateFields(data as Record<string, unknown>, {
    path,
    defaultName: context.defaultName,
    limits,
    fallbackDescription: context.describeFromBody === false ? undefined : firstParagraph(body),
    specFolder: context.specFolder,
    codexPolicy: context.codexPolicy,
    nameFromFolder: context.nameFromFolder,
  });
  diagnostics.push(...checked.diagnostics);
  if (checked.fields === undefined) return { skill: undefined, diagnostics };

  const cappedBody = capUtf8(body, limits.maxBodyBytes);
  if (cappedBody !== body || context.truncated === true) {
    diagnostics.push(diagnostic('too-large', path, `body is larger than ${limits.maxBodyBytes} bytes; cut to that size`, 'warning'));
  }
  return { skill: buildSkill({ ...checked.fields, body: cappedBody }, context), diagnostics };
}

const TAB_INDENTED_ENTRY = /^ *\t[ \t]*(?:[A-Za-z_][\w-]*[ \t]*:(?:[ \t]|\r?$)|-[ \t])/;

/**
 * The file line (1-based) of the first frontmatter key or list item indented with a tab, which YAML forbids: js-yaml (gray-matter's)
 * reads on as if the tab were not there, so `metadata:` then a tab-indented `version: 1` gives a top-level `version`, silently.
 */
function tabIndentedLine(input: string): number | undefined {
  if (!input.startsWith('---')) return undefined;
  const close = input.indexOf('\n---', 3);
  const block = input.slice(0, close < 0 ? input.length : close);
  if (!block.includes('\t')) return undefined;
  const index = block.split('\n').findIndex((line, i) => i > 0 && TAB_INDENTED_ENTRY.test(line));
  return index < 0 ? undefined : index + 1;
}
