/** The saves an indexer makes without syncing a catalog: a tools file's edited lines, a catalog at a new path. */
import type { SkillCatalog } from '../load/index.js';
import { SkillSearchEngine, type SyncResult } from '../search/index.js';
import type { AssembledCatalog } from '../search/engine.js';
import { storeSource } from '../search/stored-search.js';
import type { Diagnostic, Skill } from '../types.js';
import { SharedStore } from '../store/shared-store.js';
import { CrossLingual } from '../lang/cross-lingual.js';
import { catalogKeyOf, catalogModel } from '../search/catalog-format.js';
import { memberOf, movedBase, putMovedCatalog } from '../search/catalog-change.js';
import { keepCopyTable, renameDiagnostic, renameSkill } from '../load/tools-copy.js';
import { writeToolsLines } from '../load/tools-lines.js';
import { engineOptions, openCatalog, snapshotFacts, type LiveIndexOptions } from './live-index-options.js';

/**
 * Saves the catalog in the store when only a tools file's lines changed since a saved one
 * (`CatalogWriter.assembleDelta`), without loading it whole: what `index` tries first. Undefined
 * when it cannot be saved so.
 */
export async function saveDelta(options: LiveIndexOptions, signal?: AbortSignal): Promise<DeltaSaved | undefined> {
  const { catalog, toolsCache } = openCatalog(options);
  try {
    const delta = await catalog.delta();
    if (delta === undefined) return undefined;
    const engine = await SkillSearchEngine.open(engineOptions(options, { writer: true }));
    let assembled: AssembledCatalog | undefined;
    const { model } = engine.info;
    try {
      assembled = await engine.catalogWriter?.assembleDelta(delta, signal);
      // Off a prompt's path, as a whole `index` does: 0.2-0.3 s at 24k skills (docs/store.md, "The writers measured").
      if (assembled !== undefined) engine.collectStore();
    } finally {
      await engine.close();
    }
    if (assembled === undefined) return undefined;
    // The catalog of the new text is saved: the line tables move to that text (after it, so a table
    // never names a base the store lacks), and the next edit parses its own lines only.
    const cache = catalog.options.toolsCache;
    if (cache !== undefined && cache !== null) for (const { key, table } of delta.tables()) writeToolsLines(cache, key, table);
    const before = new Set(delta.baseIds);
    const changed = delta.members.filter((m): m is Skill => typeof m !== 'number');
    const updated = changed.filter((skill) => before.has(skill.id)).length;
    const now = new Set(delta.members.map((m) => (typeof m === 'number' ? delta.baseIds[m]! : m.id)));
    return {
      skills: delta.members.length,
      added: changed.length - updated,
      updated,
      removed: delta.baseIds.filter((id) => !now.has(id)).length,
      unchanged: delta.members.length - changed.length,
      embedded: assembled.embedded,
      model,
      diagnostics: delta.diagnostics,
    };
  } finally {
    await catalog.close();
    toolsCache?.close();
  }
}

/**
 * Saves the catalog when the store holds its skills at another path (docs/store.md, "A catalog at
 * a new path"), from that catalog's entries with their records moved, nothing embedded: what
 * `index` tries after {@link saveDelta}. A tools file's copy is found by its bytes, else the
 * catalog is loaded and compared with the one saved last. Undefined when neither finds one.
 */
export async function saveMoved(catalog: SkillCatalog, engine: SkillSearchEngine): Promise<MovedSaved | undefined> {
  const options = engine.options;
  const store = storeSource(options);
  if (typeof store !== 'string') return undefined;
  const shared = new SharedStore(store, { writer: true });
  try {
    const copy = await catalog.copyOf((base) => shared.catalog(catalogKeyOf(base, options)) !== undefined);
    if (copy !== undefined) {
      const base = shared.catalog(catalogKeyOf(copy.base, options));
      if (base === undefined) return undefined;
      const diagnostics = (JSON.parse(base.diagnostics) as Diagnostic[]).map((d) => renameDiagnostic(d, copy));
      const members = shared.members(base.id).all();
      const moved = members.map((m) => ({ ...m, record: JSON.stringify(renameSkill(JSON.parse(m.record) as Skill, copy)) }));
      const key = catalogKeyOf(copy, options);
      if (shared.catalog(key) === undefined && !putMovedCatalog(shared, key, base, { sourceStamp: copy.sourceStamp, diagnostics, members: moved }))
        return undefined;
      const cache = catalog.options.toolsCache;
      if (cache !== undefined && cache !== null) keepCopyTable(copy, cache);
      return { skills: members.length, model: engine.info.model, diagnostics };
    }
    const snapshot = await catalog.get();
    const facts = snapshotFacts(snapshot);
    if (facts === undefined || snapshot.skills.length === 0) return undefined;
    const key = catalogKeyOf(facts, options);
    if (shared.catalog(key) !== undefined) return undefined;
    const language = new CrossLingual({ ...options.crossLingual, multilingual: options.embedder.multilingual === true, cache: shared });
    const moved = await movedBase(shared, catalogModel(options), snapshot.skills, language);
    // Only when every member is the base's but for its record: a changed one's vector and entry are not the base's.
    if (moved === undefined || moved.members.some((m) => typeof m !== 'number')) return undefined;
    const members = [...moved.skills.values()].map((skill) => memberOf(skill, language.glossesOf(skill)?.lexical));
    if (!putMovedCatalog(shared, key, moved.base, { sourceStamp: facts.sourceStamp, diagnostics: facts.diagnostics, members })) return undefined;
    return { skills: members.length, model: engine.info.model, diagnostics: facts.diagnostics };
  } finally {
    shared.close();
  }
}

/** What {@link saveMoved} saved: the catalog's size, the engine's model id and the load problems (nothing embedded or changed). */
export interface MovedSaved {
  readonly skills: number;
  readonly model: string;
  readonly diagnostics: readonly Diagnostic[];
}

/** What {@link saveDelta} saved: also how the skills moved against the saved catalog, and how many were embedded. */
export interface DeltaSaved extends MovedSaved, SyncResult {}
