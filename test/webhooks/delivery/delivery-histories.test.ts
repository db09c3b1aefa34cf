// Histories of real delivery runs, recorded by test/webhooks/delivery/histories/record.ts (`npm run
// record:histories`) and committed: a run asleep before a 24 h retry, one that continued as new,
// one that ended paused, a strictly ordered one with retries. Today's workflow code must replay
// each without a non-determinism error, as a worker does when it takes over runs that a
// deployment has asleep. When a change breaks one on purpose, either guard the change with
// `patched()` or, when no deployment can have such runs, record the histories again
// (src/webhooks/README.md, "Histories that must keep replaying").
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Worker } from '@temporalio/worker';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { workflowBundleOf } from '../../support/workflow-bundles.ts';

const dir = fileURLToPath(new URL('./histories/', import.meta.url));
const recorded = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

describe('recorded delivery run histories', () => {
  it('are the four kinds the design page names', () => {
    expect(recorded).toEqual(['asleep-24h-retry.json', 'continued-as-new.json', 'ended-paused.json', 'strict-with-retries.json']);
  });

  it('each replays against today’s workflow code (the service worker’s workflows)', { timeout: 120_000 }, async () => {
    const workflowsPath = fileURLToPath(new URL('../../../workflows/index.ts', import.meta.url));
    const histories = recorded.map((file) => ({
      workflowId: path.basename(file, '.json'),
      history: historyFromJSON(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'))),
    }));
    const results: { workflowId: string; error: unknown }[] = [];
    for await (const r of Worker.runReplayHistories({ workflowBundle: await workflowBundleOf(workflowsPath) }, histories)) {
      results.push({ workflowId: r.workflowId, error: r.error });
    }
    expect(results).toEqual(histories.map((h) => ({ workflowId: h.workflowId, error: undefined })));
  });
});
