// The test environment of the files that need PostgreSQL itself (LISTEN/NOTIFY across
// connections, pg_stat_activity, a second process on the same database): such a file starts with
//
//   // @vitest-environment postgres
//
// It is vitest's node environment, with DATABASE_URL pointing at the throwaway PostgreSQL that
// global-setup.ts started when the run has no DATABASE_URL of its own (setup.ts then gives the
// file a fresh database there). Every other file stays on the embedded PGlite in that case.
import { builtinEnvironments, type Environment } from 'vitest/runtime';

export default {
  name: 'postgres',
  viteEnvironment: 'ssr',
  async setup(global, options) {
    const node = await builtinEnvironments.node.setup(global, options);
    const saved = { DATABASE_URL: process.env.DATABASE_URL, TEST_BASE_DATABASE_URL: process.env.TEST_BASE_DATABASE_URL };
    if (!process.env.DATABASE_URL) {
      const url = process.env.TEST_POSTGRES_URL;
      if (!url) throw new Error(process.env.PROVISION_MISSING ?? 'this file needs PostgreSQL: run it with vitest, whose global setup starts one when DATABASE_URL is unset');
      process.env.DATABASE_URL = url;
    }
    return {
      async teardown(g) {
        for (const [name, value] of Object.entries(saved)) {
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
        }
        await node.teardown(g);
      },
    };
  },
} satisfies Environment;
