/**
 * Declared by scripts/bundle-cli.ts at the top of the one-file CLI bundle: `{ name: version }`
 * of each package whose JavaScript the bundle carries. Undeclared everywhere else.
 */
declare const skillSearchBundledVersions: Readonly<Record<string, string>> | undefined;

/**
 * The version of `name` whose JavaScript this code was bundled with, or undefined outside the
 * CLI bundle (tsc's modules, tests) and for a package the bundle does not carry. A bundled
 * package with an addon is used only when the installed package is this version, since its
 * JavaScript and its addon go together.
 */
export function bundledVersion(name: string): string | undefined {
  return typeof skillSearchBundledVersions === 'undefined' ? undefined : skillSearchBundledVersions[name];
}
