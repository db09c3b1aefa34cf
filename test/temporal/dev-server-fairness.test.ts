// Task-queue fairness on our dev server: a workflow whose fairness key has one task is not
// served behind another key's backlog (the dev server runs with matching.enableFairness).
import { describe, expect, it } from 'vitest';
import { createWorker } from '../../workflows/worker.ts';
import { helloWorkflow } from './hello/workflows.ts';
import { helloWorkflowsPath, startTestDevServer, uniqueId, useTemporal } from '../support/temporal.ts';

describe('task-queue fairness on the dev server', () => {
  const temporal = useTemporal(startTestDevServer);

  it("dispatches a lone key's task among the first, not behind another key's backlog", { timeout: 120_000 }, async () => {
    const taskQueue = uniqueId('fair');
    const backlog = 60;
    // Everything is queued before any worker polls: 60 workflows of workspace A, then one of B.
    const start = (name: string, fairnessKey: string) =>
      temporal().client.workflow.start(helloWorkflow, { args: [name], taskQueue, workflowId: uniqueId(name), priority: { fairnessKey } });
    const handles = [];
    for (let i = 0; i < backlog; i++) handles.push(await start(`a${i}`, 'workspace-a'));
    handles.push(await start('b', 'workspace-b'));

    // One task at a time, so the order of the activity calls is the order of dispatch.
    const calls: string[] = [];
    const worker = await createWorker({
      connection: temporal().nativeConnection,
      namespace: temporal().namespace,
      taskQueue,
      workflowsPath: helloWorkflowsPath,
      // No sticky cache: every workflow task goes through the (fair) task queue.
      maxCachedWorkflows: 0,
      maxConcurrentWorkflowTaskExecutions: 1,
      maxConcurrentActivityTaskExecutions: 1,
      activities: {
        async greet(name: string) {
          calls.push(name);
          return `hi ${name}`;
        },
      },
    });
    await worker.runUntil(Promise.all(handles.map((h) => h.result())));

    expect(calls).toHaveLength(backlog + 1);
    // First come, first served, B would be about last (its task queue partition's last task);
    // fairly, it is among the first of its partition's turns. Which partition the worker's polls
    // reach first varies (CI once saw B 17th of 61), so the bound is the first half: still far
    // from last, which is what first come, first served gives.
    expect(calls.indexOf('b')).toBeLessThan(backlog / 2);
  });
});
