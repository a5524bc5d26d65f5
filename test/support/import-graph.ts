import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** What counts as an edge: every import, or only those that load a module when this one loads. */
export type EdgeKind = 'all' | 'load-time';

// `import … from './x.js'`, `export … from './x.js'`, `import './x.js'` (group 1: `type` when type-only)
// and `import('./x.js')` (group 3). Relative specifiers only: packages are not part of the graph.
const IMPORT =
  /(?:^|\n)[ \t]*(?:import|export)[ \t]+(type[ \t]+)?(?:[^'";]*?[ \t\n]from[ \t]+)?['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** Relative imports of one source file, resolved to absolute paths (`.js` → `.ts` for sources). */
export function importsOf(file: string, kind: EdgeKind): string[] {
  const text = readFileSync(file, 'utf8');
  const found = new Set<string>();
  for (const match of text.matchAll(IMPORT)) {
    const typeOnly = match[1] !== undefined;
    const dynamic = match[3] !== undefined;
    if (kind === 'load-time' && (typeOnly || dynamic)) continue;
    let target = path.resolve(path.dirname(file), (match[2] ?? match[3])!);
    if (file.endsWith('.ts')) target = target.replace(/\.js$/, '.ts');
    found.add(target);
  }
  return [...found];
}

/**
 * Every `.ts` file under `dir` (no declaration files) and its imports. Dot folders and
 * node_modules are skipped: the bench keeps whole other checkouts under `bench/.cache`.
 */
export function importGraph(dir: string, kind: EdgeKind): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!name.endsWith('.ts') || name.endsWith('.d.ts')) continue;
    if (name.split(path.sep).some((part) => part.startsWith('.') || part === 'node_modules')) continue;
    const file = path.join(dir, name);
    graph.set(file, importsOf(file, kind));
  }
  return graph;
}

/** Files loaded, transitively, when `entry` loads (static, value imports only). */
export function loadedBy(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const next of importsOf(file, 'load-time')) visit(next);
  };
  visit(path.resolve(entry));
  return seen;
}

/** Strongly connected components with more than one file (or a file importing itself): the cycles. Tarjan, O(V + E). */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (file: string) => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        connect(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)!.includes(file)) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) connect(file);
  return cycles;
}
