// Where skills live by default on this machine: the package's own folder (for the demo
// catalogue), Codex's home and admin folders, and the managed-policy folder.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readJsonQuietly } from '../util/json-file.js';

const PACKAGE_NAME = 'skill-search';

let packageRootMemo: string | null | undefined;

/** The folder holding this package's package.json, found walking up from this module (from `src/` and `dist/` alike). */
export function packageRoot(): string | null {
  if (packageRootMemo !== undefined) return packageRootMemo;
  packageRootMemo = null;
  // A missing, unreadable or foreign package.json on the way up is not ours: keep walking.
  for (let dir = dirname(fileURLToPath(import.meta.url)); packageRootMemo === null; dir = dirname(dir)) {
    if ((readJsonQuietly(join(dir, 'package.json')) as { name?: unknown } | undefined)?.name === PACKAGE_NAME) packageRootMemo = dir;
    else if (dirname(dir) === dir) break;
  }
  return packageRootMemo;
}

/** The package's example catalogue (`examples/skills`), loaded only through the `demo` option. */
export function demoSkillsDir(): string | null {
  const root = packageRoot();
  return root === null ? null : join(root, 'examples', 'skills');
}

/** @deprecated The package ships no host-bundled skills; this is {@link demoSkillsDir}. */
export const bundledSkillsDir = demoSkillsDir;

/** Codex's home folder: `$CODEX_HOME`, else `~/.codex`. */
export function defaultCodexHome(home: string): string {
  const fromEnv = process.env['CODEX_HOME'];
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(home, '.codex');
}

/** Codex's admin skills folder (`/etc/codex/skills`; none on Windows). */
export function defaultCodexAdminDir(): string | null {
  return process.platform === 'win32' ? null : '/etc/codex/skills';
}

const MANAGED_DIRS: Partial<Record<NodeJS.Platform, string>> = {
  darwin: '/Library/Application Support/ClaudeCode/.claude/skills',
  win32: 'C:\\Program Files\\ClaudeCode\\.claude\\skills',
};

/** Managed (policy) skills: `SKILL_SEARCH_MANAGED_DIR`, else the platform's policy folder. */
export function defaultManagedDir(): string | null {
  const fromEnv = process.env['SKILL_SEARCH_MANAGED_DIR'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  return MANAGED_DIRS[process.platform] ?? '/etc/claude-code/.claude/skills';
}
