/** `{ name: version }` of the packages the one-file CLI bundle carries (scripts/bundle-cli.ts); undeclared elsewhere. */
declare const skillSearchBundledVersions: Readonly<Record<string, string>> | undefined;

/** The version of `name` bundled with this code; undefined outside the CLI bundle or for a package it does not carry. */
export function bundledVersion(name: string): string | undefined {
  return typeof skillSearchBundledVersions === 'undefined' ? undefined : skillSearchBundledVersions[name];
}
