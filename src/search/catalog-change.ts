/** A catalog as a change of a saved one: its edited lines (`changeOfDelta`), or its skills at other paths (`movedBase`). */
import { SkillSearchError } from '../errors.js';
import type { CrossLingual } from '../lang/cross-lingual.js';
import { lexicalEntry, lexicalKey, type LexicalEntry } from '../lexical/lexical-entry.js';
import type { CatalogDelta } from '../load/tools-delta.js';
import type { CatalogKey, CatalogMember, CatalogMembers, StoredCatalog } from '../store/entry-store.js';
import type { SharedStore } from '../store/shared-store.js';
import type { Diagnostic, Skill } from '../types.js';
import { CATALOG_FORMAT } from './catalog-format.js';
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

/** A saved catalog that searches as a catalog of other records, and those records by id. */
export interface MovedCatalog {
  readonly base: StoredCatalog;
  readonly skills: ReadonlyMap<string, Skill>;
  /** The skills in document order: the base's document where its member is the skill's but for the record, else the skill. */
  readonly members: readonly (number | Skill)[];
  /** The base's member keys by document, read once (`CatalogWriter.holdMoved` tells its change from them). */
  readonly keys: readonly Omit<CatalogMember, 'record'>[];
}

/**
 * The saved catalog (the one of `model` saved last) holding `skills` at other paths: the same ids
 * at the same documents, a kept member differing only by its record (docs/store.md, "A catalog at
 * a new path"), and which of them changed besides ({@link MovedCatalog.members}). Undefined when
 * no saved catalog holds the same ids in the same order. `language` is prepared with `skills`.
 */
export async function movedBase(store: SharedStore, model: string, skills: readonly Skill[], language: CrossLingual): Promise<MovedCatalog | undefined> {
  const byId = new Map<string, Skill>();
  for (const skill of skills) if (!byId.has(skill.id)) byId.set(skill.id, skill);
  const base = store.latestCatalog(model, CATALOG_FORMAT);
  if (base === undefined || base.size !== byId.size || byId.size === 0) return undefined;
  const keys = store.members(base.id).keys();
  if (keys.length !== byId.size) return undefined;
  const ordered = [...byId.values()];
  // The ids first: another catalog is told before the language step.
  if (!ordered.every((skill, doc) => keys[doc]!.id === skill.id)) return undefined;
  await language.prepare(ordered);
  const members = ordered.map((skill, doc): number | Skill => {
    const key = keys[doc]!;
    return key.name === normalizeName(skill.name) &&
      key.vectorKey === vectorKey(skill) &&
      key.lexicalKey === lexicalKey(skill, language.glossesOf(skill)?.lexical)
      ? doc
      : skill;
  });
  return { base, skills: byId, members, keys };
}

/** A catalog of a saved catalog's skills at other paths, to write ({@link putMovedCatalog}). */
export interface MovedMembers {
  readonly sourceStamp: string;
  readonly diagnostics: readonly Diagnostic[];
  /** The base's members in its order, each with its record at the new path. */
  readonly members: readonly CatalogMember[];
}

/**
 * Writes the catalog `moved` under `key` from `base`, whose members it holds with other records
 * only: its lexical entries, vectors, mean, sum and graph are the base's. False when it was not
 * written: the base is an overlay (a catalog written whole cannot name its graph), or the store
 * failed or no longer holds an entry.
 */
export function putMovedCatalog(store: SharedStore, key: CatalogKey, base: StoredCatalog, moved: MovedMembers): boolean {
  if (base.graph !== undefined && base.graphHolder !== undefined && base.graphHolder !== base.id) return false;
  const id = store.putCatalog({
    ...key,
    sourceStamp: moved.sourceStamp,
    diagnostics: JSON.stringify(moved.diagnostics),
    members: moved.members,
    mean: base.mean,
    sum: base.sum,
    graph: base.graph,
    lexicalEntry: (doc) => {
      // The base's entries are stored; one gone means a collection ran between the reads: not written.
      throw new SkillSearchError('INTERNAL', `moved catalog: the store no longer holds the lexical entry of document ${doc}`);
    },
  });
  return id >= 0;
}
