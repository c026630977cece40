import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/template-database.ts'],
    pool: 'forks',
    // Most files wait on daemons, databases and child processes rather than on a core: two at once finish
    // the suite far sooner on CI's two cores than vitest's default of one (cores - 1).
    maxWorkers: 2,
    // Each worker runs its files one after another in one process, so the daemon's modules (knex, koa,
    // oidc-provider, PGlite's WebAssembly) load once per worker rather than once per file (about 2.3 s a
    // file on CI's two cores; the PGlite suite went from 1105 to 692 s). Sound because no module keeps
    // mutable state; test/suite-isolation.test.ts holds the tests to it.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
