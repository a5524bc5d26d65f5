/**
 * Before the host tests: dist built (the hooks run bin/skill-search.js), and the pinned host
 * CLIs installed into their cache folder. When the npm registry cannot be reached the tests
 * are skipped, with one line saying so.
 */
import type { TestProject } from 'vitest/node';
import { ensureBuilt } from '../../../scripts/ensure-built.js';
import { ensureHosts, RegistryUnreachable } from '../../../scripts/hosts/install-hosts.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Bin path per host CLI; empty when the hosts could not be installed. */
    hostBins: { claude?: string; codex?: string };
    /** Why the host tests are skipped; '' when they run. */
    hostsSkipped: string;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  ensureBuilt();
  try {
    project.provide('hostBins', await ensureHosts());
    project.provide('hostsSkipped', '');
  } catch (error) {
    if (!(error instanceof RegistryUnreachable)) throw error;
    const reason = `test:hosts skipped: ${error.message}`;
    process.stdout.write(`${reason}\n`);
    project.provide('hostBins', {});
    project.provide('hostsSkipped', reason);
  }
}
