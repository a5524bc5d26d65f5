import { createHash } from 'node:crypto';
import type { ShadowedSkill, Skill } from '../types.js';
import { hashSkills } from './source-stamp.js';
import { getOrAdd } from '../util/get-or-add.js';

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

/**
 * The merge of `entries` as the merge of `previous` with the new objects swapped in, when only skills that kept their place, file,
 * id, name, source and rank changed (their text); undefined otherwise (merge anew).
 */
export function patchMerge(previous: readonly MergeEntry[], result: MergeResult, entries: readonly MergeEntry[]): MergeResult | undefined {
  if (previous.length !== entries.length) return undefined;
  const swapped = new Map<Skill, Skill>();
  for (let i = 0; i < entries.length; i++) {
    const was = previous[i]!;
    const now = entries[i]!;
    if (was === now) continue;
    if (was.realPath !== now.realPath) return undefined;
    if (was.skill === now.skill) continue;
    const a = was.skill;
    const b = now.skill;
    if (a.id !== b.id || a.name !== b.name || a.path !== b.path || a.source !== b.source || a.rank !== b.rank) return undefined;
    swapped.set(a, b);
  }
  if (swapped.size === 0) return result;
  return { skills: result.skills.map((skill) => swapped.get(skill) ?? skill), shadowed: result.shadowed };
}

/** A scan's merged skills, and its shadowed skills and problems as JSON. */
export interface ScanContent {
  readonly skills: readonly Skill[];
  readonly rest: string;
}

/** Whether two scans found the same catalog: skills a rescan did not re-read compare by identity, only the others by hash. */
export function sameContent(last: ScanContent | undefined, next: ScanContent): boolean {
  if (last === undefined || last.rest !== next.rest || last.skills.length !== next.skills.length) return false;
  for (let i = 0; i < next.skills.length; i++) {
    const a = last.skills[i]!;
    const b = next.skills[i]!;
    if (a !== b && skillDigest(a) !== skillDigest(b)) return false;
  }
  return true;
}

const digests = new WeakMap<Skill, string>();

function skillDigest(skill: Skill): string {
  return getOrAdd(digests, skill, () => hashSkills(createHash('sha256'), [skill]).digest('hex'));
}
