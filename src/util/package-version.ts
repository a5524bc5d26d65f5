import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** This package's package.json: `src/*` and `dist/*` both sit two levels below it. */
export const PACKAGE_FILE = fileURLToPath(new URL('../../package.json', import.meta.url));

/** This package's version. */
export function packageVersion(): string {
  cached ??= (JSON.parse(readFileSync(PACKAGE_FILE, 'utf8')) as { version: string }).version;
  return cached;
}
