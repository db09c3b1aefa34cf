// Whose turns a statement takes at the embedded database's one connection (src/db/fair-turns.ts):
// a request's, once authenticated, and a delivery run's steps are their workspace's, so a busy
// workspace's requests and deliveries together get one share and another workspace's get theirs.
// Lanes are named on PostgreSQL too (nothing reads them there), so this runs on both.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MockActivityEnvironment } from '@temporalio/testing';
import { currentDatabaseLane } from '../../src/db/fair-turns.ts';
import { boardRepository } from '../../src/boards/board.repository.ts';
import { createDeliveryActivities } from '../../src/webhooks/delivery/activities.ts';
import { initialRunState } from '../../src/webhooks/delivery/run-state.ts';
import { queueRepository } from '../../src/webhooks/delivery/queue.repository.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';

afterEach(() => vi.restoreAllMocks());

describe('database lanes', () => {
  it("an authenticated request's statements take its workspace's lane, whichever of its keys it sends", async () => {
    const ws = await createTestWorkspace();
    const other = await createTestWorkspace();
    const lanes: string[] = [];
    const listVisible = boardRepository.listVisible.bind(boardRepository);
    vi.spyOn(boardRepository, 'listVisible').mockImplementation((...args) => (lanes.push(currentDatabaseLane()), listVisible(...args)));
    for (const key of [await ws.key(), await ws.key(), await other.key()]) {
      const res = await api('GET', '/boards', { key: key.value });
      expect(res.status).toBe(200);
    }
    expect(lanes).toEqual([`workspace:${ws.workspace.id}`, `workspace:${ws.workspace.id}`, `workspace:${other.workspace.id}`]);
  });

  it("a delivery run's claim and batch take its workspace's lane; the service's lane outside them", async () => {
    const ws = await createTestWorkspace();
    const lanes: string[] = [];
    const stop = new Error('seen');
    vi.spyOn(queueRepository, 'claimDue').mockImplementation(async () => (lanes.push(currentDatabaseLane()), Promise.reject(stop)));
    vi.spyOn(queueRepository, 'takeOver').mockImplementation(async () => (lanes.push(currentDatabaseLane()), Promise.reject(stop)));
    const activities = createDeliveryActivities();
    const env = () => new MockActivityEnvironment({ workflowExecution: { workflowId: 'deliveries:wh_x', runId: 'run-1' } });
    const state = initialRunState();
    await expect(
      env().run(activities.claimDue, { subscriptionId: 'wh_x', workspaceId: ws.workspace.id, runId: 'run-1', token: 't', state, open: 0, now: Date.now(), waitedFor: null }),
    ).rejects.toThrow('seen');
    await expect(env().run(activities.sendBatch, { subscriptionId: 'wh_x', workspaceId: ws.workspace.id, token: 't', deliveries: [], width: 1 })).rejects.toThrow('seen');
    expect(lanes).toEqual([`workspace:${ws.workspace.id}`, `workspace:${ws.workspace.id}`]);
  });
});
