import { SkillSearchError } from '../errors.js';
import type { CrossLingual } from '../lang/cross-lingual.js';
import { lexicalKey } from '../lexical/lexical-entry.js';
import type { CatalogKey, CatalogMember, StoredCatalog } from '../store/entry-store.js';
import type { SharedStore } from '../store/shared-store.js';
import type { Diagnostic, Skill } from '../types.js';
import { CATALOG_FORMAT } from './catalog-format.js';
import { normalizeName } from './exact-name.js';
import { vectorKey } from './skill-text.js';

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
