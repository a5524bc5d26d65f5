import { createHash } from 'node:crypto';
import type { Skill } from '../types.js';
import type { MergeEntry, MergeResult } from './merge.js';
import { hashSkills } from './source-stamp.js';
import { getOrAdd } from '../util/get-or-add.js';

/*
 * What a catalog rescan takes over from the last scan, so that one changed file costs about
 * one skill's work on a 24k catalog rather than a pass of sorting and hashing over all of it.
 */

/**
 * The merge of `entries` from the merge of `previous` when they differ only in skills that kept
 * their place, file, id, name, source and rank (their text changed): what decides the merge
 * (order, rank, id, real path) and what a shadowed record names is then the same, so the
 * winners are the previous ones with the new objects swapped in. Undefined otherwise (merge anew).
 * A rescan after one edit then costs one pass instead of a sort of every skill.
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

/**
 * Whether two scans found the same catalog, so `generation` moves only when something changed.
 * Skill objects are frozen and a rescan hands back the ones it did not re-read, so most compare
 * by identity; only the others are hashed ({@link hashSkills}, once per object): a rescan after
 * one edit hashes one skill, not 24k.
 */
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
