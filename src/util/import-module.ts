/**
 * Supplied by bin/skill-search.js when it runs the one-file CLI bundle: the bin compiles the
 * bundle itself (to reuse V8's code cache) and such code cannot `import()` on its own, so the
 * bin lends its own `import()`. Undeclared everywhere else.
 */
declare const skillSearchImport: ((specifier: string) => Promise<unknown>) | undefined;

/**
 * `import(specifier)` of a package or a `file:` URL, for the ES modules this package loads at
 * run time (a CommonJS build cannot `require` them). Every dynamic import of something outside
 * `src/` goes through here (scripts/bundle-cli.ts checks the bundle has no other).
 */
export function importModule<T>(specifier: string): Promise<T> {
  return (typeof skillSearchImport === 'function' ? skillSearchImport(specifier) : import(specifier)) as Promise<T>;
}
