import { existsSync } from 'node:fs';
import path from 'node:path';
import { isRecord, readJsonQuietly } from './json-file.js';

export interface InstalledPackage {
  /** The package's folder. */
  readonly root: string;
  /** Its package.json, parsed. */
  readonly manifest: Readonly<Record<string, unknown>>;
}

/**
 * Package `name` in the nearest `node_modules` up from `fromDir`, with its manifest, so its files
 * are read by path without Node's resolver (docs/cold-start.md); undefined when not found or unparsable.
 */
export function installedPackage(name: string, fromDir: string): InstalledPackage | undefined {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const root = path.join(dir, 'node_modules', name);
    if (existsSync(root)) {
      const manifest = readJsonQuietly(path.join(root, 'package.json'));
      return isRecord(manifest) ? { root, manifest } : undefined;
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}
