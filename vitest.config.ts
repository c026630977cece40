import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/template-database.ts'],
    pool: 'forks',
    // Most files wait on daemons, databases and child processes rather than on a core: two at once finish
    // the suite far sooner on CI's two cores than vitest's default of one (cores - 1).
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
