import { defineConfig } from 'vitest/config';

// `npm run test:hosts`: the real Claude Code and Codex CLIs against loopback model stubs
// (test/hosts). Kept out of `npm test`: it installs the hosts from the npm registry once. Every
// process a test starts gets its own HOME and SKILL_SEARCH_CACHE_DIR (support/host-home.ts).
export default defineConfig({
  test: {
    include: ['test/hosts/**/*.test.ts'],
    globalSetup: ['test/hosts/support/global-setup.ts'],
    // Installing both CLIs the first time takes about a minute; a host run takes seconds.
    testTimeout: 180_000,
    hookTimeout: 900_000,
    pool: 'forks',
    // Each host run already starts several processes; one file at a time keeps timings honest.
    fileParallelism: false,
  },
});
