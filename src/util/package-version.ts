import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** This package's package.json: `src/*` and `dist/*` both sit two levels below it. */
const PACKAGE_FILE = fileURLToPath(new URL('../../package.json', import.meta.url));

/** Files an upgrade, a reinstall or a build writes anew: package.json and the file this code runs from (the CLI's bundle, once built). */
export const INSTALLED_FILES: readonly string[] = [PACKAGE_FILE, fileURLToPath(import.meta.url)];

/** This package's version. */
export function packageVersion(): string {
  cached ??= (JSON.parse(readFileSync(PACKAGE_FILE, 'utf8')) as { version: string }).version;
  return cached;
}
