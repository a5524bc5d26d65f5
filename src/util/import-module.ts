/** The bin's own `import()`, lent to the CLI bundle it compiles (which cannot `import()` itself); undeclared elsewhere. */
declare const skillSearchImport: ((specifier: string) => Promise<unknown>) | undefined;

/** `import(specifier)`: every dynamic import from outside `src/` goes through here (scripts/bundle-cli.ts checks). */
export function importModule<T>(specifier: string): Promise<T> {
  return (typeof skillSearchImport === 'function' ? skillSearchImport(specifier) : import(specifier)) as Promise<T>;
}
