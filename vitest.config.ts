import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  // Node resolves `graphql` to its CommonJS build (as Pothos and Yoga load it); Vite would pick
  // the .mjs one, and two graphql realms refuse each other's schema.
  // `// @vitest-environment postgres` at the top of a file that needs PostgreSQL itself names
  // test/support/postgres-environment.ts (vitest looks environments up as vitest-environment-<name>).
  resolve: {
    alias: [
      { find: /^graphql$/, replacement: require.resolve('graphql') },
      { find: /^vitest-environment-postgres$/, replacement: fileURLToPath(new URL('test/support/postgres-environment.ts', import.meta.url)) },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores: more parallel files only contend for them (PGlite and Temporal are CPU-bound).
    maxWorkers: 2,
  },
});
