// `npm run record:histories`: the main configuration, running only the recorder (record.ts).
import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vitest/config';
import base from '../../../../vitest.config.ts';

export default mergeConfig(
  base,
  defineConfig({
    root: fileURLToPath(new URL('../../../..', import.meta.url)),
    test: { projects: [{ extends: true, test: { name: 'record', include: ['test/webhooks/delivery/histories/record.ts'] } }] },
  }),
);
