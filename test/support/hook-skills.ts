import type { SearchHit, Skill } from '../../src/types.js';

/** A user skill as a hook test needs it: `Does <name>`, under `/skills/<name>/SKILL.md`. */
export function hookSkill(name: string): Skill {
  return {
    name,
    description: `Does ${name}`,
    source: 'skills',
    rank: 5,
    path: `/skills/${name}/SKILL.md`,
    id: name,
    body: '',
    tokenEstimate: 1,
    contentHash: name,
  };
}

/** A dense hit on `hookSkill(name)`. */
export function hookHit(name: string, score: number): SearchHit {
  return { skill: hookSkill(name), score, via: ['dense'] };
}
