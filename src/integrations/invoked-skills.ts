/**
 * A skill has two names in Claude Code: its frontmatter `name` (ours) and the name Claude Code
 * 2.1 lists it by, its folder's for a `<folder>/SKILL.md` (`src/cli/commands/host-profile.ts`).
 * Its Skill tool takes either, so a session's transcript may name a skill by either; here an
 * invocation under either counts for the skill.
 */
import path from 'node:path';
import type { Skill } from '../types.js';

/** What names a skill: its catalog name, its file and where it was found. */
export type NamedSkill = Pick<Skill, 'name' | 'path' | 'source'>;

/**
 * The name Claude Code gives `skill`: a `<folder>/SKILL.md` is named by its folder (a plugin's
 * prefixed with the plugin's namespace, as ours is); any other file keeps its name (a loose
 * `.md` is named by its file, a legacy command by its path, an MCP skill by its server).
 */
export function claudeCodeName(skill: NamedSkill): string {
  if (path.basename(skill.path) !== 'SKILL.md' || skill.source === 'commands_DEPRECATED' || skill.source === 'mcp') return skill.name;
  const folder = path.basename(path.dirname(skill.path));
  const colon = skill.source === 'plugin' ? skill.name.lastIndexOf(':') : -1;
  return colon < 0 ? folder : `${skill.name.slice(0, colon + 1)}${folder}`;
}

/**
 * Names the session invoked skills by, as the transcript has them. `has(name)` is asked with a
 * catalog name: it is true also when the skill `skillOf(name)` finds was invoked under its
 * Claude Code name. Iterating gives the names as invoked.
 */
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

  /**
   * The invoked names, each under the catalog name of the skill among `known` it names by its
   * Claude Code name (a name that is some known skill's catalog name stays as it is).
   */
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
