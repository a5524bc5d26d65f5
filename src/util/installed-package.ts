import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface InstalledPackage {
  /** The package's folder. */
  readonly root: string;
  /** Its package.json, parsed. */
  readonly manifest: Readonly<Record<string, unknown>>;
}

/**
 * Package `name` as Node's lookup from `fromDir` finds it (the nearest `node_modules/<name>` up),
 * with its manifest: a file named from it is then required or read by path, which skips Node's
 * resolver (1–2 ms of a cold hook for a package with `exports`; docs/cold-start.md). Undefined
 * when not found that way or its manifest does not parse: callers then resolve the name.
 */
export function installedPackage(name: string, fromDir: string): InstalledPackage | undefined {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const root = path.join(dir, 'node_modules', name);
    if (existsSync(root)) {
      try {
        const manifest: unknown = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
        return typeof manifest === 'object' && manifest !== null && !Array.isArray(manifest)
          ? { root, manifest: manifest as Record<string, unknown> }
          : undefined;
      } catch {
        return undefined;
      }
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}
