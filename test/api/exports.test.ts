import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ensureBuilt } from '../../scripts/ensure-built.js';
import { loadedBy } from '../support/import-graph.js';

const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, string | { types: string; import: string }>;
  dependencies: Record<string, string>;
};
const entries = Object.entries(pkg.exports).filter((entry): entry is [string, { types: string; import: string }] => typeof entry[1] !== 'string');
const specifier = (subpath: string) => (subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`);

/** Runtime export names of every entry, imported by package name from a fresh Node process in the package root. */
function importByName(): Record<string, string[]> {
  const script = `const out = {}; for (const s of ${JSON.stringify(entries.map(([subpath]) => specifier(subpath)))}) out[s] = Object.keys(await import(s)).sort(); console.log(JSON.stringify(out));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }));
}

/** `import { a, type B } from 'skill-search…'` statements in the README's code blocks. */
function readmeImports(): { from: string; values: string[]; types: string[] }[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  return [...readme.matchAll(/import\s*\{([^}]*)\}\s*from\s*'(skill-search(?:\/[a-z-]+)?)'/g)].map((match) => {
    const names = match[1]!
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    return {
      from: match[2]!,
      values: names.filter((name) => !name.startsWith('type ')),
      types: names.filter((name) => name.startsWith('type ')).map((name) => name.slice(5).trim()),
    };
  });
}

/** Packages the entry points' declarations import, transitively through their relative imports: what a TypeScript user's compiler reads. */
function declarationPackages(): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(/(?:\bfrom\s+|\bimport\(\s*)['"]([^'"]+)['"]/g)) {
      const specifier = match[1]!;
      const name = specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1);
      if (specifier.startsWith('.')) visit(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.d.ts')));
      else if (!specifier.startsWith('node:')) packages.add(name.join('/'));
    }
  };
  for (const [, target] of entries) visit(path.join(ROOT, target.types));
  return packages;
}

/** Whether a package ships its own type declarations. */
function shipsTypes(name: string): boolean {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as Record<string, unknown>;
  return manifest.types !== undefined || manifest.typings !== undefined || JSON.stringify(manifest.exports ?? {}).includes('"types"');
}

let exported: Record<string, string[]>;
beforeAll(() => {
  ensureBuilt();
  exported = importByName();
}, 180_000);

describe('package entry points (built package, imported by name)', () => {
  it('every subpath resolves and has its type declarations', () => {
    expect(entries.map(([subpath]) => subpath)).toEqual(['.', './load', './embed', './search', './prefetch', './attachments', './hook', './mcp', './cli']);
    for (const [subpath, target] of entries) {
      expect(existsSync(path.join(ROOT, target.types)), subpath).toBe(true);
      expect(exported[specifier(subpath)]!.length, subpath).toBeGreaterThan(0);
    }
  });

  it('the root exports exactly the union of the stage subpaths (the CLI stays apart)', () => {
    const union = new Set(entries.filter(([subpath]) => subpath !== '.' && subpath !== './cli').flatMap(([subpath]) => exported[specifier(subpath)]!));
    expect(exported[pkg.name]).toEqual([...union].sort());
    expect(exported[`${pkg.name}/cli`]).toEqual(['main']);
  });

  it('the declarations import only dependencies whose types install with them (no devDependency types)', () => {
    const packages = [...declarationPackages()].sort();
    expect(packages).toContain('zod');
    for (const name of packages) {
      expect(pkg.dependencies[name], `${name} is imported by the public declarations`).toBeDefined();
      expect(shipsTypes(name) || pkg.dependencies[`@types/${name}`] !== undefined, `${name}'s types reach a user's compiler`).toBe(true);
    }
  });

  it('keeps internals private', () => {
    for (const internal of ['writeFileAtomic', 'TopK', 'stem', 'raceAbort', 'linkAbortSignal', 'resolveEngineOptions', 'tokenize', 'main']) {
      expect(exported[pkg.name], internal).not.toContain(internal);
    }
  });

  it('exports every name the README imports, from the subpath it names', () => {
    const imports = readmeImports();
    expect(imports.map((statement) => statement.from)).toContain('skill-search/prefetch');
    for (const { from, values, types } of imports) {
      expect(exported[from], from).toBeDefined();
      for (const name of values) expect(exported[from], `${name} from ${from}`).toContain(name);
      const target = pkg.exports[from === pkg.name ? '.' : `./${from.slice(pkg.name.length + 1)}`] as { types: string };
      const declarations = readFileSync(path.join(ROOT, target.types), 'utf8');
      for (const name of types) expect(declarations, `type ${name} from ${from}`).toMatch(new RegExp(`\\b${name}\\b`));
    }
  });

  it('the root never loads the CLI, and prefetch loads neither the model, the indexes nor the catalog', () => {
    const rel = (files: Set<string>) => [...files].map((file) => path.relative(path.join(ROOT, 'dist'), file));
    expect(rel(loadedBy(path.join(ROOT, 'dist', 'index.js'))).filter((file) => file.startsWith('cli/'))).toEqual([]);
    expect(rel(loadedBy(path.join(ROOT, 'dist', 'api', 'prefetch.js'))).sort()).toEqual([
      'api/prefetch.js',
      'errors.js',
      // The hook's cut of a long message only.
      'integrations/query-cap.js',
      // The hosts' invocation rule only: no catalog, no file reading.
      'load/invocation.js',
      'prefetch/experimental.js',
      'prefetch/prefetcher.js',
      'prefetch/task-limiter.js',
      // The shown list's companion rule only: no engine.
      'search/companions.js',
      'util/defined.js',
      'util/link-signal.js',
      'util/option-checks.js',
      // "Did you mean" for a misspelt option: no imports of its own.
      'util/suggest.js',
      'util/text.js',
    ]);
  });
});
