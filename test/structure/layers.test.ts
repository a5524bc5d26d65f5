import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph } from '../support/import-graph.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** Layers below the search core: each owns its knobs and defaults, so none reaches up for them. */
const LOWER = ['lexical', 'vector-index', 'lang', 'embed', 'load'];
/** What the lower layers may not import, type-only and lazy imports included. */
const UPPER = ['search', 'cli'];

/** `from → to` for every import under `src` from a lower layer's file into an upper layer's folder. */
function upwardImports(src: string): string[] {
  const folderOf = (file: string) => path.relative(src, file).split(path.sep)[0]!;
  const found: string[] = [];
  for (const [file, imports] of importGraph(src, 'all')) {
    if (!LOWER.includes(folderOf(file))) continue;
    for (const target of imports) {
      if (UPPER.includes(folderOf(target))) found.push(`${path.relative(src, file)} → ${path.relative(src, target)}`);
    }
  }
  return found.sort();
}

describe('layers', () => {
  it(`${LOWER.join(', ')} import nothing from ${UPPER.join(' or ')}`, () => {
    expect(upwardImports(SRC)).toEqual([]);
  });

  it('reports an upward import, type-only or lazy, and not a sideways or downward one', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'skill-search-layers-'));
    try {
      for (const folder of ['lexical', 'lang', 'search', 'util']) mkdirSync(path.join(dir, folder));
      writeFileSync(path.join(dir, 'search', 'options.ts'), "import { x } from '../lexical/a.js';\nexport const y = x;\n");
      writeFileSync(path.join(dir, 'lexical', 'a.ts'), "import type { y } from '../search/options.js';\nimport '../util/u.js';\nexport const x = 1;\n");
      writeFileSync(path.join(dir, 'lang', 'b.ts'), "import { x } from '../lexical/a.js';\nexport const load = () => import('../search/options.js');\n");
      writeFileSync(path.join(dir, 'util', 'u.ts'), 'export {};\n');
      expect(upwardImports(dir)).toEqual([`lang${path.sep}b.ts → search${path.sep}options.ts`, `lexical${path.sep}a.ts → search${path.sep}options.ts`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
