import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/** `npm run test:package`: the slow install of the packed tarball, apart from `npm test`. */
export default defineConfig({
  test: {
    include: ['test/package/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 600_000,
    pool: 'forks',
    env: { SKILL_SEARCH_CACHE_DIR: join(tmpdir(), 'skill-search-vitest-cache') },
  },
});
