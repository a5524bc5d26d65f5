/**
 * A skill has two names in Claude Code: its frontmatter `name` (ours) and the one Claude Code 2.1
 * lists it by (its folder's, for a `<folder>/SKILL.md`). A transcript may name it by either.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readFrontmatterLines } from '../load/lenient-frontmatter.js';
import type { Skill } from '../types.js';

/** What names a skill: its catalog name, its file and where it was found. */
export type NamedSkill = Pick<Skill, 'name' | 'path' | 'source'>;

/** The name Claude Code gives `skill`: a `<folder>/SKILL.md` its folder's (a plugin's with its namespace); any other its own. */
export function claudeCodeName(skill: NamedSkill): string {
  if (path.basename(skill.path) !== 'SKILL.md' || skill.source === 'commands_DEPRECATED' || skill.source === 'mcp') return skill.name;
  const folder = path.basename(path.dirname(skill.path));
  const colon = skill.source === 'plugin' ? skill.name.lastIndexOf(':') : -1;
  return colon < 0 ? folder : `${skill.name.slice(0, colon + 1)}${folder}`;
}

/** The text of a SKILL.md in Claude Code's own folders (user, project, managed) as written, without a byte-order mark; undefined for any other skill or a file it cannot read. */
export function claudeCodeSkillText(skill: NamedSkill): string | undefined {
  if ((skill.source !== 'skills' && skill.source !== 'managed') || path.basename(skill.path) !== 'SKILL.md') return undefined;
  try {
    return readFileSync(skill.path, 'utf8').replace(/^\uFEFF/, '');
  } catch {
    return undefined;
  }
}

/**
 * The frontmatter `name` of a skill Claude Code names by its folder, where it differs: Claude Code 2.1.337 shows it
 * beside the folder's name and runs `/<that name>` as the skill. Undefined for any other skill, or a file it cannot read.
 */
export function writtenClaudeCodeName(skill: NamedSkill): string | undefined {
  const text = claudeCodeSkillText(skill);
  if (text === undefined || !/^---[ \t]*\r?\n/.test(text)) return undefined;
  const written = readFrontmatterLines(text).fields['name']?.trim();
  return written === undefined || written === '' || written === claudeCodeName(skill) ? undefined : written;
}

/** Names the session invoked skills by; `has(catalog name)` is true also when that skill was invoked under its Claude Code name. */
export class InvokedSkills extends Set<string> {
  readonly #skillOf: (name: string) => NamedSkill | undefined;

  constructor(skillOf: (name: string) => NamedSkill | undefined) {
    super();
    this.#skillOf = skillOf;
  }

  override has(name: string): boolean {
    if (super.has(name)) return true;
    const skill = this.#skillOf(name);
    return skill !== undefined && super.has(claudeCodeName(skill));
  }

  /** The invoked names, a Claude Code name replaced by the catalog name of the skill among `known` it names. */
  catalogNames(known: Iterable<NamedSkill>): string[] {
    const catalog = new Set<string>();
    const byHostName = new Map<string, string>();
    for (const skill of known) {
      catalog.add(skill.name);
      const hostName = claudeCodeName(skill);
      if (hostName !== skill.name && !byHostName.has(hostName)) byHostName.set(hostName, skill.name);
    }
    return [...new Set([...this].map((name) => (catalog.has(name) ? name : (byHostName.get(name) ?? name))))];
  }
}
