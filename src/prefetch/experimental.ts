/**
 * The EXPERIMENTAL_SKILL_SEARCH flag (SPEC §5). When on, the listing shrinks to bundled and
 * MCP skills and the rest of the catalog is reached through per-turn discovery.
 */
import type { LoadedFrom, Skill } from '../types.js';

export const EXPERIMENTAL_SKILL_SEARCH_ENV = 'EXPERIMENTAL_SKILL_SEARCH';

/** Sources still listed up front when the flag is on. */
export const EXPERIMENTAL_LISTED_SOURCES: readonly LoadedFrom[] = Object.freeze(['bundled', 'mcp']);

const TRUTHY = new Set(['1', 'true', 'yes', 'on']);

/** Whether the experimental path is on: an explicit `option` wins, else the environment variable (`1`, `true`, `yes` or `on`, any case). */
export function isExperimentalSkillSearch(env: Readonly<Record<string, string | undefined>> = process.env, option?: boolean): boolean {
  if (option !== undefined) return option;
  const value = env[EXPERIMENTAL_SKILL_SEARCH_ENV];
  return value !== undefined && TRUTHY.has(value.trim().toLowerCase());
}

/** The skills the listing announces: all of them, or only bundled and MCP ones under the flag. */
export function listingSkills(skills: readonly Skill[], experimental: boolean): readonly Skill[] {
  if (!experimental) return skills;
  return skills.filter((skill) => EXPERIMENTAL_LISTED_SOURCES.includes(skill.source));
}
