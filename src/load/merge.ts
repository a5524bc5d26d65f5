import type { ShadowedSkill, Skill } from '../types.js';

export interface MergeEntry {
  readonly skill: Skill;
  /** The file's realpath (or the skill's path when it is not a file). */
  readonly realPath: string;
}

export interface MergeResult {
  /** Winners, by rank then load order. */
  readonly skills: readonly Skill[];
  readonly shadowed: readonly ShadowedSkill[];
}

function ref(skill: Skill): ShadowedSkill['winner'] {
  return Object.freeze({ path: skill.path, source: skill.source, rank: skill.rank });
}

/** First-wins shadowing by rank, then load order: entries with one realpath are one file; two files with one id are a collision, always recorded. */
export function mergeSkills(entries: readonly MergeEntry[]): MergeResult {
  const ordered = entries.map((entry, order) => ({ entry, order })).sort((a, b) => a.entry.skill.rank - b.entry.skill.rank || a.order - b.order);
  const seenFiles = new Set<string>();
  const winners = new Map<string, Skill>();
  const shadowed: ShadowedSkill[] = [];
  for (const { entry } of ordered) {
    if (seenFiles.has(entry.realPath)) continue;
    seenFiles.add(entry.realPath);
    const winner = winners.get(entry.skill.id);
    if (winner === undefined) {
      winners.set(entry.skill.id, entry.skill);
      continue;
    }
    shadowed.push(Object.freeze({ name: entry.skill.name, winner: ref(winner), loser: ref(entry.skill) }));
  }
  return { skills: [...winners.values()], shadowed };
}
