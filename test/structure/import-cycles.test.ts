import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph } from '../support/import-graph.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Cycles owned by work in progress elsewhere, each to be removed with that work, never added to. */
const PENDING: readonly (readonly string[])[] = [];

/** Cycles under `dir`, counting every edge: type-only and lazy `import()` ones tie modules together too. */
function cyclesUnder(dir: string): string[][] {
  const absolute = path.join(ROOT, dir);
  return importCycles(importGraph(absolute, 'all')).map((cycle) => cycle.map((file) => path.relative(ROOT, file)));
}

describe('import graph', () => {
  it('src/ has no import cycles', () => {
    const pending = new Set(PENDING.map((cycle) => cycle.join(' ')));
    expect(cyclesUnder('src').filter((cycle) => !pending.has(cycle.join(' ')))).toEqual([]);
  });

  it('bench/ and scripts/ have no import cycles', () => {
    expect([...cyclesUnder('bench'), ...cyclesUnder('scripts')]).toEqual([]);
  });

  it('finds a cycle through a type-only import and a lazy import(), and none where there is none', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'skill-search-cycles-'));
    try {
      writeFileSync(path.join(dir, 'a.ts'), "import type { B } from './b.js';\nexport type A = B;\n");
      writeFileSync(path.join(dir, 'b.ts'), "export type B = string;\nexport const load = () => import('./a.js');\n");
      writeFileSync(path.join(dir, 'c.ts'), "import { load } from './b.js';\nexport { load };\n");
      const cycles = importCycles(importGraph(dir, 'all'));
      expect(cycles.map((cycle) => cycle.map((file) => path.basename(file)))).toEqual([['a.ts', 'b.ts']]);
      expect(importCycles(importGraph(dir, 'load-time'))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
