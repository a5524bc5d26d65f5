/** Where the host CLIs are installed, reuse of an installed copy, and the skip when the registry is out of reach. */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureHosts, HOST_PACKAGES, HOSTS_DIR_ENV, hostsDir, RegistryUnreachable } from '../../scripts/hosts/install-hosts.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'skill-search-hosts-dir-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs `body` with npm pointed at a closed loopback port: any registry request fails at once. */
async function offline<T>(body: () => Promise<T>): Promise<T> {
  const saved = process.env.npm_config_registry;
  process.env.npm_config_registry = 'http://127.0.0.1:9/';
  try {
    return await body();
  } finally {
    if (saved === undefined) delete process.env.npm_config_registry;
    else process.env.npm_config_registry = saved;
  }
}

describe('install-hosts', () => {
  it('installs under $XDG_CACHE_HOME, else ~/.cache, unless the env var names a folder', () => {
    expect(hostsDir({ XDG_CACHE_HOME: '/x/cache' })).toBe('/x/cache/skill-search-test-hosts');
    expect(hostsDir({})).toBe(path.join(os.homedir(), '.cache', 'skill-search-test-hosts'));
    expect(hostsDir({ XDG_CACHE_HOME: '/x/cache', [HOSTS_DIR_ENV]: 'rel/hosts' })).toBe(path.resolve('rel/hosts'));
  });

  it('reuses installed copies without asking the registry', async () => {
    const dir = tempDir();
    for (const pkg of Object.values(HOST_PACKAGES)) {
      const bin = path.join(dir, `${pkg.name}@${pkg.version}`, 'node_modules', '.bin');
      mkdirSync(bin, { recursive: true });
      writeFileSync(path.join(bin, pkg.bin), '#!/bin/sh\n');
      chmodSync(path.join(bin, pkg.bin), 0o755);
    }
    const bins = await offline(() => ensureHosts(dir));
    expect(bins.claude).toBe(path.join(dir, '@anthropic-ai', 'claude-code@2.1.337', 'node_modules', '.bin', 'claude'));
    expect(bins.codex).toBe(path.join(dir, '@openai', 'codex@0.171.0', 'node_modules', '.bin', 'codex'));
  });

  it('reports an unreachable registry as RegistryUnreachable (the suite skips), with npm’s reason', async () => {
    const error = await offline(() => ensureHosts(tempDir()).catch((caught: unknown) => caught));
    expect(error).toBeInstanceOf(RegistryUnreachable);
    expect((error as Error).message).toMatch(/^the npm registry cannot be reached \(npm ping: .*ECONNREFUSED/);
  });
});
