// The hello workflow end to end on a real dev server: real worker, real activity.
import { describe, expect, it } from 'vitest';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { createHelloActivities } from './hello/activities.ts';
import { helloWorkflow } from './hello/workflows.ts';
import { createWorker } from '../../src/temporal/worker.ts';
import { helloWorkflowsPath, startTestDevServer, uniqueId, useTemporal } from '../support/temporal.ts';

describe('hello workflow on the dev server', () => {
  const temporal = useTemporal(startTestDevServer);

  it('runs the greet activity in a real worker and returns its result', { timeout: 60_000 }, async () => {
    const taskQueue = uniqueId('hello');
    const calls: string[] = [];
    const real = createHelloActivities({ greeting: 'Hi' });
    const worker = await createWorker({
      connection: temporal().nativeConnection,
      namespace: temporal().namespace,
      taskQueue,
      workflowsPath: helloWorkflowsPath,
      activities: {
        async greet(name: string) {
          calls.push(name);
          return await real.greet(name);
        },
      },
    });

    const workflowId = uniqueId('hello-wf');
    const subscriptionId = defineSearchAttributeKey('SubscriptionId', SearchAttributeType.KEYWORD);
    const result = await worker.runUntil(
      temporal().client.workflow.execute(helloWorkflow, {
        args: ['Ada'],
        taskQueue,
        workflowId,
        // Fails unless the dev server registered our search attributes.
        typedSearchAttributes: [{ key: subscriptionId, value: 'sub-123' }],
      }),
    );

    expect(result).toBe('Hi, Ada!');
    expect(calls).toEqual(['Ada']);

    const handle = temporal().client.workflow.getHandle(workflowId);
    const description = await handle.describe();
    expect(description.status.name).toBe('COMPLETED');
    expect(description.typedSearchAttributes.get(subscriptionId)).toBe('sub-123');

    const history = await handle.fetchHistory();
    const completed = history.events?.filter((e) => e.activityTaskCompletedEventAttributes) ?? [];
    expect(completed).toHaveLength(1);
  });
});
