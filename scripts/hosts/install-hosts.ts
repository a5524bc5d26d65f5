/**
 * The real host CLIs the host tests run (`npm run test:hosts`): pinned Claude Code and Codex,
 * installed with npm into a cache folder outside the project's dependencies and reused when
 * present. Each version is installed into a temporary folder beside its place and renamed
 * into it, so concurrent runs never see (or write) a half-installed copy.
 *
 * Run directly (`tsx scripts/hosts/install-hosts.ts`) it installs both and prints their paths.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface HostPackage {
  readonly name: string;
  readonly version: string;
  /** The CLI under `node_modules/.bin`. */
  readonly bin: string;
}

export const HOST_PACKAGES = Object.freeze({
  claude: { name: '@anthropic-ai/claude-code', version: '2.1.337', bin: 'claude' },
  codex: { name: '@openai/codex', version: '0.171.0', bin: 'codex' },
} satisfies Record<string, HostPackage>);

export type HostName = keyof typeof HOST_PACKAGES;

/** Overrides the cache folder the host CLIs are installed under. */
export const HOSTS_DIR_ENV = 'SKILL_SEARCH_TEST_HOSTS_DIR';

/** Time for `npm ping` to reach the registry, and for one package's install. */
const PING_TIMEOUT_MS = 15_000;
const INSTALL_TIMEOUT_MS = 10 * 60_000;

export function hostsDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const override = env[HOSTS_DIR_ENV];
  if (override !== undefined && override !== '') return path.resolve(override);
  const cache = env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== '' ? env.XDG_CACHE_HOME : path.join(os.homedir(), '.cache');
  return path.join(cache, 'skill-search-test-hosts');
}

/** `<dir>/<name>@<version>` (a scoped name nests one folder: `@scope/name@version`). */
function installDir(dir: string, pkg: HostPackage): string {
  return path.join(dir, `${pkg.name}@${pkg.version}`);
}

function binOf(dir: string, pkg: HostPackage): string {
  return path.join(dir, 'node_modules', '.bin', pkg.bin);
}

/** Thrown when the npm registry cannot be reached: the host tests are skipped, not failed. */
export class RegistryUnreachable extends Error {}

async function pingRegistry(): Promise<void> {
  try {
    // One try, so an unreachable registry is told within the timeout rather than after npm's retries;
    // its own log level, so `npm run -s` (which silences child npm calls) still leaves the reason.
    await run('npm', ['ping', '--fetch-retries=0', `--fetch-timeout=${PING_TIMEOUT_MS}`, '--loglevel=error'], {
      timeout: PING_TIMEOUT_MS + 5000,
    });
  } catch (error) {
    const lines = String((error as { stderr?: string }).stderr ?? '').split('\n');
    // npm prints the cause as `npm error FetchError: request to … failed, reason: …`.
    const cause = lines.find((text) => text.includes('FetchError')) ?? lines.find((text) => text.startsWith('npm error')) ?? String(error);
    const detail = cause.replace(/^npm error /, '').trim();
    throw new RegistryUnreachable(`the npm registry cannot be reached (npm ping: ${detail})`);
  }
}

async function installOne(dir: string, pkg: HostPackage): Promise<string> {
  const target = installDir(dir, pkg);
  if (existsSync(binOf(target, pkg))) return binOf(target, pkg);
  mkdirSync(path.dirname(target), { recursive: true });
  const staging = mkdtempSync(path.join(path.dirname(target), `.staging-${pkg.bin}-`));
  try {
    await run('npm', ['install', '--prefix', staging, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', `${pkg.name}@${pkg.version}`], {
      timeout: INSTALL_TIMEOUT_MS,
      maxBuffer: 64 * 1024 * 1024,
    });
    if (!existsSync(binOf(staging, pkg))) throw new Error(`npm installed ${pkg.name}@${pkg.version} without its bin ${pkg.bin}`);
    try {
      renameSync(staging, target);
    } catch (error) {
      // Another run renamed its copy into place first: use that one.
      if (!existsSync(binOf(target, pkg))) throw error;
    }
    return binOf(target, pkg);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** The bin path of each host CLI, installing what is missing (pings the registry first). */
export async function ensureHosts(dir = hostsDir()): Promise<Record<HostName, string>> {
  const names = Object.keys(HOST_PACKAGES) as HostName[];
  if (names.some((name) => !existsSync(binOf(installDir(dir, HOST_PACKAGES[name]), HOST_PACKAGES[name])))) await pingRegistry();
  const bins = await Promise.all(names.map((name) => installOne(dir, HOST_PACKAGES[name])));
  return Object.fromEntries(names.map((name, i) => [name, bins[i]!])) as Record<HostName, string>;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  ensureHosts().then(
    (bins) => {
      for (const [name, bin] of Object.entries(bins)) process.stdout.write(`${name}: ${bin}\n`);
    },
    (error: unknown) => {
      process.stderr.write(`install-hosts: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = error instanceof RegistryUnreachable ? 3 : 1;
    },
  );
}
