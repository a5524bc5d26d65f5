import type { LoadedFrom, Skill } from '../../src/types.js';

const RANK: Record<LoadedFrom, number> = {
  bundled: 1,
  plugin: 2,
  managed: 3,
  skills: 4,
  commands_DEPRECATED: 7,
  mcp: 8,
  codex: 9,
  library: 10,
  demo: 11,
};

export function makeSkill(name: string, fields: Partial<Omit<Skill, 'name'>> = {}): Skill {
  const source = fields.source ?? 'skills';
  const description = fields.description ?? `${name} description`;
  return {
    name,
    description,
    source,
    rank: fields.rank ?? RANK[source],
    path: fields.path ?? `/skills/${name}/SKILL.md`,
    id: fields.id ?? name,
    body: fields.body ?? `# ${name}\n\nDo the ${name} thing.`,
    tokenEstimate: fields.tokenEstimate ?? 10,
    contentHash: fields.contentHash ?? `hash-${name}`,
    ...(fields.whenToUse === undefined ? {} : { whenToUse: fields.whenToUse }),
  };
}
