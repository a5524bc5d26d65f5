/** What goes from the store: a catalog dropped, the entries and catalogs no one used lately, graph files no catalog names. */
import { readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';

const DAY_MS = 86_400_000;
/** Today as a day number: what the store's `used` columns hold and `collect` compares. */
export const today = (): number => Math.floor(Date.now() / DAY_MS);
/** A graph file no catalog names is removed once it is this old (a writer may be about to record it). */
const ORPHAN_GRAPH_MS = 60_000;

/** Deletes catalog `id` with its membership and lexical statistics. */
export function dropCatalog(db: BetterSqlite3.Database, id: number): void {
  db.prepare('DELETE FROM catalog_skills WHERE catalog = ?').run(id);
  db.prepare('DELETE FROM lexical_catalogs WHERE catalog = ?').run(id);
  db.prepare('DELETE FROM catalogs WHERE id = ?').run(id);
}

/** Whether a catalog names graph file `graph`. */
export function graphNamed(db: BetterSqlite3.Database, graph: string): boolean {
  return db.prepare('SELECT 1 FROM catalogs WHERE graph = ?').get(graph) !== undefined;
}

/** Removes those of `graphs` (files in `graphDir`) no catalog names any more. Readers that hold one open keep their mapping (the file goes from the folder only). */
export function removeUnnamedGraphs(db: BetterSqlite3.Database, graphDir: string, graphs: readonly string[]): void {
  for (const graph of graphs) if (!graphNamed(db, graph)) rmSync(path.join(graphDir, graph), { force: true });
}

/** In one transaction, removes the entries and catalogs no one used in the last `days` days; returns how many went and the graph files of those catalogs. */
export function collectUnused(db: BetterSqlite3.Database, days: number): { readonly removed: number; readonly graphs: readonly string[] } {
  let removed = 0;
  const graphs: string[] = [];
  db.transaction(() => {
    const before = today() - days;
    // A catalog an overlay kept reads from stays with it.
    const gone = db
      .prepare<{ before: number }, { id: number; graph: string | null }>(
        'SELECT id, graph FROM catalogs c WHERE used < @before AND NOT EXISTS (SELECT 1 FROM catalogs o WHERE o.base = c.id AND o.used >= @before)',
      )
      .all({ before });
    for (const { id, graph } of gone) {
      dropCatalog(db, id);
      if (graph !== null) graphs.push(graph);
    }
    removed += gone.length;
    // Lexical entries no catalog holds any more go with their postings.
    const orphans = 'SELECT id FROM lexical_entries WHERE NOT EXISTS (SELECT 1 FROM catalog_skills s WHERE s.lexical_key = lexical_entries.key)';
    db.prepare(`DELETE FROM lexical_postings WHERE entry IN (${orphans})`).run();
    db.prepare(`DELETE FROM lexical_entries WHERE id IN (${orphans})`).run();
    // A vector a kept catalog holds stays, however old: its graph names it.
    removed += db
      .prepare('DELETE FROM vectors WHERE used < ? AND NOT EXISTS (SELECT 1 FROM catalog_skills s WHERE s.vector_key = vectors.key)')
      .run(before).changes;
    removed += db.prepare('DELETE FROM tools_skills WHERE used < ?').run(before).changes;
    removed += db.prepare('DELETE FROM tools_lines WHERE used < ?').run(before).changes;
    // Immediate: a transaction that reads first cannot wait for the write lock when it comes to write.
  }).immediate();
  return { removed, graphs };
}

/** Removes the graph files in `graphDir` no catalog names (replaced ones, those a killed writer left) once they are old enough. */
export function collectGraphs(db: BetterSqlite3.Database, graphDir: string): void {
  let files: string[];
  try {
    files = readdirSync(graphDir);
  } catch {
    return;
  }
  const named = new Set(db.prepare<[], string>('SELECT graph FROM catalogs WHERE graph IS NOT NULL').pluck().all());
  for (const file of files) {
    const full = path.join(graphDir, file);
    if (named.has(file)) continue;
    try {
      if (Date.now() - statSync(full).mtimeMs > ORPHAN_GRAPH_MS) rmSync(full, { force: true });
    } catch {
      // Gone meanwhile.
    }
  }
}
