// Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, no I/O here.
import { proxyActivities, sleep } from '@temporalio/workflow';
import type * as activities from './activities.ts';

const { greet } = proxyActivities<activities.HelloActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 },
});

export async function helloWorkflow(name: string): Promise<string> {
  return await greet(name);
}

/** Exercises durable timers; Date.now() inside a workflow is the workflow's own clock. */
export async function sleepThenGreetWorkflow(
  name: string,
): Promise<{ greeting: string; startedAtMs: number; finishedAtMs: number }> {
  const startedAtMs = Date.now();
  await sleep('24 hours');
  const greeting = await greet(name);
  return { greeting, startedAtMs, finishedAtMs: Date.now() };
}
