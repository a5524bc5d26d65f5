import type { Diagnostic, Skill } from '../types.js';
import { validateFields } from './fields.js';
import { buildSkill, capUtf8, diagnostic, type SkillLimits } from './skill.js';
import { SOURCE_RANKS } from './sources.js';

/** What an MCP server registers: like a skill file's frontmatter, plus an optional body. */
export interface McpSkillInput {
  readonly name: string;
  readonly description: string;
  readonly whenToUse?: string;
  readonly body?: string;
}

/** One MCP server's skills (`mcp:<server>/<name>`, rank 8), checked as a skill file's fields are, with their problems. */
export function buildMcpSkills(
  server: string,
  inputs: readonly McpSkillInput[],
  limits: SkillLimits,
): { readonly skills: readonly Skill[]; readonly diagnostics: readonly Diagnostic[] } {
  const skills: Skill[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const input of inputs) {
    const path = `mcp:${server}/${String(input.name)}`;
    const checked = validateFields(input as unknown as Record<string, unknown>, { path, defaultName: '', limits });
    diagnostics.push(...checked.diagnostics);
    if (checked.fields === undefined) continue;
    const rawBody = typeof input.body === 'string' ? input.body : '';
    const body = capUtf8(rawBody, limits.maxBodyBytes);
    if (body !== rawBody) diagnostics.push(diagnostic('too-large', path, `body is larger than ${limits.maxBodyBytes} bytes; cut to that size`, 'warning'));
    skills.push(buildSkill({ ...checked.fields, hooks: undefined, body }, { path, source: 'mcp', rank: SOURCE_RANKS.mcp }));
  }
  return { skills, diagnostics };
}
