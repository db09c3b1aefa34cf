// The time-skipping test server: a workflow sleeping 24 hours finishes in seconds.
import { describe, expect, it } from 'vitest';
import { createHelloActivities } from './hello/activities.ts';
import { sleepThenGreetWorkflow } from './hello/workflows.ts';
import { createWorker } from '../../src/temporal/worker.ts';
import { createTimeSkippingEnv, helloWorkflowsPath, uniqueId, useTemporal } from '../support/temporal.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('time-skipping environment', () => {
  const temporal = useTemporal(createTimeSkippingEnv);

  it('skips a 24 hour timer', { timeout: 60_000 }, async () => {
    expect(temporal().supportsTimeSkipping).toBe(true);
    const taskQueue = uniqueId('sleep');
    const worker = await createWorker({
      connection: temporal().nativeConnection,
      namespace: temporal().namespace ?? 'default',
      taskQueue,
      workflowsPath: helloWorkflowsPath,
      activities: createHelloActivities(),
    });

    const wallStart = Date.now();
    const result = await worker.runUntil(
      temporal().client.workflow.execute(sleepThenGreetWorkflow, {
        args: ['Grace'],
        taskQueue,
        workflowId: uniqueId('sleep-wf'),
      }),
    );
    const wallMs = Date.now() - wallStart;

    expect(result.greeting).toBe('Hello, Grace!');
    expect(result.finishedAtMs - result.startedAtMs).toBeGreaterThanOrEqual(DAY_MS);
    expect(wallMs).toBeLessThan(30_000);
  });
});
