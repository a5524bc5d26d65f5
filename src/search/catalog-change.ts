import { lexicalEntry, lexicalKey, type LexicalEntry } from '../lexical/lexical-entry.js';
import type { CatalogDelta } from '../load/tools-delta.js';
import type { CatalogMember, CatalogMembers, StoredCatalog } from '../store/entry-store.js';
import type { Skill } from '../types.js';
import { normalizeName } from './exact-name.js';
import { vectorKey } from './skill-text.js';

/**
 * The change `delta` (`SkillCatalog.delta`) makes of `base`, the saved catalog it names, whose
 * members are `stored`: only the changed skills are made members, and only the base's members
 * that left or whose documents changed skills take are read; `glossesOf`: a changed skill's
 * lexical glosses. Undefined when the base is not the catalog the line tables describe.
 */
export function changeOfDelta(
  delta: Pick<CatalogDelta, 'members' | 'baseIds'>,
  base: StoredCatalog,
  stored: CatalogMembers,
  glossesOf: (skill: Skill) => string | undefined,
): BaseChange | undefined {
  if (base.size !== delta.baseIds.length) return undefined;
  const kept = new Uint8Array(base.size);
  const docs: (CatalogMember | number)[] = [];
  const skillAt = new Map<number, Skill>();
  const { members } = delta;
  for (let at = 0; at < members.length; at += 1) {
    const m = members[at]!;
    if (typeof m === 'number') {
      kept[m] = 1;
      docs.push(m);
    } else {
      skillAt.set(docs.length, m);
      docs.push(memberOf(m, glossesOf(m)));
    }
  }
  // The base's members that left, and those at changed documents: each checked to be the skill the line tables say.
  const left: number[] = [];
  for (let doc = 0; doc < kept.length; doc += 1) if (kept[doc] === 0) left.push(doc);
  const probed = [...new Set([...left, ...[...skillAt.keys()].filter((doc) => doc < base.size)])];
  const found = stored.at(probed);
  if (probed.some((doc) => found.get(doc)?.id !== delta.baseIds[doc])) return undefined;
  const leaving = left.map((doc) => found.get(doc)!.vectorKey);
  const comingKeys = [...skillAt.keys()].map((doc) => (docs[doc] as CatalogMember).vectorKey);
  // A key goes from the graph when no member holds it any more, comes when none held it.
  const held = stored.holding([...new Set([...leaving, ...comingKeys])]);
  const after = new Map(held);
  for (const key of leaving) after.set(key, after.get(key)! - 1);
  for (const key of comingKeys) after.set(key, after.get(key)! + 1);
  const gone = [...after].filter(([key, count]) => count === 0 && held.get(key)! > 0).map(([key]) => key);
  const added = [...after].filter(([key, count]) => count > 0 && held.get(key) === 0).map(([key]) => key);
  // Counted only when it matters: not kept in place, or the count may cross the exact-search size.
  const certain = base.graph === undefined ? added.length <= gone.length : gone.length <= added.length;
  const inPlace = keepsInPlace(docs, delta.baseIds);
  const distinct = certain && inPlace ? (base.graph === undefined ? 0 : Number.POSITIVE_INFINITY) : stored.distinctVectors() - gone.length + added.length;
  return {
    docs,
    inPlace,
    leaving,
    gone,
    added,
    distinct,
    skillAt: (doc) => skillAt.get(doc)!,
    entryOf: (doc) => lexicalEntry(skillAt.get(doc)!, glossesOf(skillAt.get(doc)!)),
  };
}

/** True when `docs` keeps every member of `before` (the base's) in place and changes at most half: what the store writes as an overlay. */
function keepsInPlace(docs: readonly (CatalogMember | number)[], before: readonly string[]): boolean {
  if (docs.length !== before.length) return false;
  let changed = 0;
  for (let doc = 0; doc < docs.length; doc += 1) {
    const m = docs[doc]!;
    if (typeof m === 'number') {
      if (m !== doc) return false;
    } else if (m.id !== before[doc]) return false;
    else changed += 1;
  }
  return 2 * changed <= docs.length;
}

/** A catalog as a change of a saved one (`CatalogWriter`'s `#assembleFrom` writes it). */
export interface BaseChange {
  /** Each document: the base's document it keeps, or the member written in its place. */
  readonly docs: readonly (CatalogMember | number)[];
  /** Whether it keeps every member of the base in place ({@link keepsInPlace}). */
  readonly inPlace: boolean;
  /** The vector keys of the base's members not kept (one per member). */
  readonly leaving: readonly string[];
  /** Vector keys the base's members hold and the new catalog's do not, and (`added`) the other way round. */
  readonly gone: readonly string[];
  readonly added: readonly string[];
  /** How many distinct vectors the new catalog holds (infinite: above any exact-search size, as its base). */
  readonly distinct: number;
  /** The skill of a written document, and its lexical entry. */
  readonly skillAt: (doc: number) => Skill;
  readonly entryOf: (doc: number) => LexicalEntry;
}

/** What the store keeps of `skill` as a catalog member (`glosses`: the lexical glosses it is indexed with). */
export function memberOf(skill: Skill, glosses: string | undefined): CatalogMember {
  return { id: skill.id, name: normalizeName(skill.name), lexicalKey: lexicalKey(skill, glosses), vectorKey: vectorKey(skill), record: JSON.stringify(skill) };
}
