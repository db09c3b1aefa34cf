// Where an attempt runs (workflows/delivery/placement.ts): in the workflow task for a receiver
// that answers fast, as a regular activity for a slow one; a fast receiver's attempt may wait
// briefly in the worker for a slot freed there, a bounded number of them per subscription.
import { describe, expect, it } from 'vitest';
import { awaitHandOver, FAST_RECEIVER_MS, handOver, isFast, recordAnswer } from '../../workflows/delivery/placement.ts';

describe('delivery placement', () => {
  it('counts an unseen receiver as fast and follows the moving average of its answers', () => {
    expect(isFast('wh_unseen')).toBe(true);
    recordAnswer('wh_slow', 8_000);
    expect(isFast('wh_slow')).toBe(false);
    // One fast answer does not make a slow receiver fast; a run of them does.
    recordAnswer('wh_slow', 5);
    expect(isFast('wh_slow')).toBe(false);
    for (let i = 0; i < 30; i++) recordAnswer('wh_slow', 5);
    expect(isFast('wh_slow')).toBe(true);
    recordAnswer('wh_fast', FAST_RECEIVER_MS - 1);
    expect(isFast('wh_fast')).toBe(true);
  });

  it('hands a freed slot to a delivery waiting in this worker, and tells when none waits', async () => {
    const waiting = awaitHandOver('wh_a', 'dlv_1', 60_000, 2);
    expect(handOver('dlv_1')).toBe(true);
    await expect(waiting).resolves.toBe(true);
    // Nobody waits for it any more: the caller signals the delivery's workflow instead.
    expect(handOver('dlv_1')).toBe(false);
  });

  it('gives up the brief wait when it ends, after which the slot goes by signal', async () => {
    await expect(awaitHandOver('wh_b', 'dlv_2', 5, 2)).resolves.toBe(false);
    expect(handOver('dlv_2')).toBe(false);
  });

  it('lets at most the limit of one subscription\'s attempts wait in the worker, others not counted', async () => {
    const first = awaitHandOver('wh_c', 'dlv_3', 60_000, 2);
    const second = awaitHandOver('wh_c', 'dlv_4', 60_000, 2);
    // A third of the same subscription does not wait at all.
    await expect(awaitHandOver('wh_c', 'dlv_5', 60_000, 2)).resolves.toBe(false);
    // Another subscription's attempt does.
    const other = awaitHandOver('wh_d', 'dlv_6', 60_000, 2);
    for (const id of ['dlv_3', 'dlv_4', 'dlv_6']) expect(handOver(id)).toBe(true);
    await expect(Promise.all([first, second, other])).resolves.toEqual([true, true, true]);
    // Their places are free again.
    const again = awaitHandOver('wh_c', 'dlv_7', 60_000, 2);
    expect(handOver('dlv_7')).toBe(true);
    await expect(again).resolves.toBe(true);
  });
});
