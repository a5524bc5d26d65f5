import { createHash } from 'node:crypto';
import type { Skill } from '../types.js';
import type { MergeEntry, MergeResult } from './merge.js';
import { hashSkills } from './source-stamp.js';
import { getOrAdd } from '../util/get-or-add.js';

/**
 * What a rescan takes over from the last scan: the merge of `entries` from the merge of `previous`
 * when only skills that kept their place, file, id, name, source and rank changed (their text):
 * the previous winners with the new objects swapped in. Undefined otherwise (merge anew).
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
