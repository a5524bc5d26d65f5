/**
 * The hosts' rules on who may invoke a skill, decided on load and asked through {@link isOfferedToModel} by the listing, hook, MCP
 * search and prefetch. `disable-model-invocation: true` (Claude Code) or `policy.allow_implicit_invocation: false` (Codex's
 * `agents/openai.yaml`) keeps a skill from the model, even when named; `user-invocable: false` only hides it from the slash menu.
 * `query`, `validate` and `list --all` say why; MCP `read_skill` refuses it, as Claude Code's Skill tool does.
 */
import type { SearchHit, Skill, SkillInvocation } from '../types.js';

/** What Codex reads from `agents/openai.yaml`: `policy.allow_implicit_invocation` (its default is true). */
export interface CodexPolicy {
  readonly allowImplicitInvocation: boolean;
}

/** Codex's per-skill metadata file, relative to the skill folder. */
export const CODEX_POLICY_FILE = 'agents/openai.yaml';

/** Claude Code reads these two flags as `true`/`false` or the strings `"true"`/`"false"`. */
function flag(value: unknown): boolean | undefined {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  return undefined;
}

/** The invocation rule of a skill's frontmatter plus its Codex policy; undefined when nothing restricts it. */
export function invocationOf(frontmatter: Readonly<Record<string, unknown>>, codex: CodexPolicy | undefined): SkillInvocation | undefined {
  const reasons: string[] = [];
  let model = true;
  let user = true;
  if (flag(frontmatter['disable-model-invocation']) === true) {
    model = false;
    reasons.push('disable-model-invocation: true');
  }
  if (codex?.allowImplicitInvocation === false) {
    model = false;
    reasons.push(`${CODEX_POLICY_FILE}: policy.allow_implicit_invocation: false`);
  }
  if (flag(frontmatter['user-invocable']) === false) {
    user = false;
    reasons.push('user-invocable: false');
  }
  return reasons.length === 0 ? undefined : Object.freeze({ model, user, reasons: Object.freeze(reasons) });
}

/** The one predicate: may this skill be listed or suggested to a model without being named? */
export function isOfferedToModel(skill: Pick<Skill, 'invocation'>): boolean {
  return skill.invocation?.model !== false;
}

/** Whether Codex lists the skill: only its own policy keeps one out, not `disable-model-invocation`. */
export function isListedByCodex(skill: Pick<Skill, 'invocation'>): boolean {
  return !(skill.invocation?.reasons.some((reason) => reason.startsWith(CODEX_POLICY_FILE)) ?? false);
}

/** The skills a listing may announce. */
export function offeredSkills<T extends Pick<Skill, 'invocation'>>(skills: readonly T[]): T[] {
  return skills.filter(isOfferedToModel);
}

/** The hits a suggestion to the model may carry: skills offered to the model, however they were found. */
export function offeredHits<T extends Pick<SearchHit, 'skill'>>(hits: readonly T[]): T[] {
  return hits.filter((hit) => isOfferedToModel(hit.skill));
}

/** Why a skill is not offered to the model (or not in the user's menu), for `list --all` and `validate`. */
export function invocationNote(skill: Pick<Skill, 'invocation'>): string | undefined {
  const rule = skill.invocation;
  if (rule === undefined) return undefined;
  const who = !rule.model ? 'never offered to the model; invoked by its name only' : "hidden from the user's slash menu; still offered to the model";
  return `${who} (${rule.reasons.join(', ')})`;
}

/** The Agent Skills spec's limits (https://agentskills.io/specification): broken ones are warnings. */
const AGENT_SKILLS_SPEC = Object.freeze({
  maxNameChars: 64,
  maxDescriptionChars: 1024,
  name: /^[a-z0-9]+(?:-[a-z0-9]+)*$/,
});

/** How a folder skill's name and description break the Agent Skills spec, one message each. */
export function specProblems(skill: { readonly name: string; readonly description: string; readonly folder: string }): string[] {
  const problems: string[] = [];
  const { name, description, folder } = skill;
  if (!AGENT_SKILLS_SPEC.name.test(name)) {
    problems.push(`name ${JSON.stringify(name)} is not lowercase letters, digits and single hyphens (Agent Skills spec)`);
  }
  if (name.length > AGENT_SKILLS_SPEC.maxNameChars) {
    problems.push(`name is ${name.length} characters; the Agent Skills spec allows ${AGENT_SKILLS_SPEC.maxNameChars}`);
  }
  if (name !== folder) problems.push(`name ${JSON.stringify(name)} does not match its folder ${JSON.stringify(folder)} (Agent Skills spec)`);
  if (description.length > AGENT_SKILLS_SPEC.maxDescriptionChars) {
    problems.push(`description is ${description.length} characters; the Agent Skills spec allows ${AGENT_SKILLS_SPEC.maxDescriptionChars}`);
  }
  return problems;
}
