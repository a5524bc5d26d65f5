import { SkillSearchError } from '../errors.js';
import type { CrossLingual } from '../lang/cross-lingual.js';
import { lexicalKey } from '../lexical/lexical-entry.js';
import type { CatalogKey, CatalogMember, StoredCatalog } from '../store/entry-store.js';
import type { SharedStore } from '../store/shared-store.js';
import type { Diagnostic, Skill } from '../types.js';
import type { HeldCatalog } from './catalog-holder.js';
import { CATALOG_FORMAT } from './catalog-format.js';
import { normalizeName } from './exact-name.js';
import { vectorKey } from './skill-text.js';

/** A saved catalog that searches as a catalog of other records, and those records by id. */
export interface MovedCatalog {
  readonly base: StoredCatalog;
  readonly skills: ReadonlyMap<string, Skill>;
}

/**
 * The saved catalog (the one of `model` saved last) holding `skills` at other paths: the same
 * ids at the same documents, each with the same name, lexical key and vector key, only their
 * records differing (a tools file or skill folder copied or moved, docs/store.md "A catalog at
 * a new path"). Its lexical index, vectors, mean and graph are then what a clean build of
 * `skills` would write, so a search of it with the records taken from memory answers as that
 * build. Undefined when there is no such catalog. `language` is prepared with `skills`, as the
 * catalog writer does, for the glosses the lexical keys hold.
 */
export async function movedBase(store: SharedStore, model: string, skills: readonly Skill[], language: CrossLingual): Promise<MovedCatalog | undefined> {
  const byId = new Map<string, Skill>();
  for (const skill of skills) if (!byId.has(skill.id)) byId.set(skill.id, skill);
  const base = store.latestCatalog(model, CATALOG_FORMAT);
  if (base === undefined || base.size !== byId.size || byId.size === 0) return undefined;
  const members = store.members(base.id).keys();
  if (members.length !== byId.size) return undefined;
  const ordered = [...byId.values()];
  // The cheap keys first: a changed catalog (the assembly's case) is told before the language step.
  if (
    !ordered.every(
      (skill, doc) => members[doc]!.id === skill.id && members[doc]!.name === normalizeName(skill.name) && members[doc]!.vectorKey === vectorKey(skill),
    )
  )
    return undefined;
  await language.prepare(ordered);
  if (!ordered.every((skill, doc) => members[doc]!.lexicalKey === lexicalKey(skill, language.glossesOf(skill)?.lexical))) return undefined;
  return { base, skills: byId };
}

/**
 * The saved catalog `held` is held over (`CatalogWriter.holdMoved`: a copy with a few skills
 * changed), with `skills` by id and `language` prepared with them, for a search that takes the
 * records from memory; undefined when it is no longer the catalog of `model` saved last.
 */
export async function heldMovedBase(
  store: SharedStore,
  model: string,
  skills: readonly Skill[],
  language: CrossLingual,
  held: HeldCatalog,
): Promise<MovedCatalog | undefined> {
  const base = store.latestCatalog(model, CATALOG_FORMAT);
  if (base?.id !== held.base.id) return undefined;
  const byId = new Map<string, Skill>();
  for (const skill of skills) if (!byId.has(skill.id)) byId.set(skill.id, skill);
  await language.prepare(byId.values());
  return { base, skills: byId };
}

/** A catalog of a saved catalog's skills at other paths, to write ({@link putMovedCatalog}). */
export interface MovedMembers {
  readonly sourceStamp: string;
  readonly diagnostics: readonly Diagnostic[];
  /** The base's members in its order, each with its record at the new path. */
  readonly members: readonly CatalogMember[];
}

/**
 * Writes the catalog `moved` under `key` from `base`, whose members it holds with other
 * records only (the same ids, names, lexical and vector keys at the same documents): its
 * lexical entries, vectors, mean, sum and graph are the base's, so nothing is embedded or
 * tokenised (docs/store.md, "A catalog at a new path"). False when it was not written: the base
 * is an overlay searched with its changed vectors beside its base's graph (a catalog written
 * whole cannot name that graph), or the store failed or no longer holds an entry.
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
