import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** This package's version; `src/*` and `dist/*` both sit two levels below package.json. */
export function packageVersion(): string {
  cached ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return cached;
}
