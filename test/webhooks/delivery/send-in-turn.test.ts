// The batch's sending order: `width` at a time in event order, none started after a failure or once
// the batch was replaced (its activity cancelled after a heartbeat timeout, another attempt sending).
import { describe, expect, it } from 'vitest';
import { sendInTurn } from '../../../src/webhooks/delivery/activities.ts';
import type { ClaimedDelivery } from '../../../src/webhooks/delivery/queue.repository.ts';

const items: ClaimedDelivery[] = Array.from({ length: 8 }, (_, i) => ({ id: `dlv_${i}`, eventId: `evt_${i}`, attempt: 1, waited: null }));
type SendOne = Parameters<typeof sendInTurn>[2];

/** A sender that answers `status(i)` and records how many were open at once. */
function sender(status: (i: number) => number) {
  const started: string[] = [];
  let open = 0;
  let most = 0;
  const sendOne = (async (d: ClaimedDelivery) => {
    started.push(d.id);
    open += 1;
    most = Math.max(most, open);
    await new Promise((r) => setImmediate(r));
    open -= 1;
    return { claimed: d, result: { httpStatus: status(Number(d.id.slice(4))), durationMs: 1 } };
  }) as unknown as SendOne;
  return { sendOne, started, most: () => most };
}

describe('sendInTurn', () => {
  it('sends all in order, never more than width at once', async () => {
    const s = sender(() => 200);
    const { sent, unstarted } = await sendInTurn(items, 3, s.sendOne);
    expect(s.started).toEqual(items.map((d) => d.id));
    expect(sent.map((x) => x.claimed.id)).toEqual(items.map((d) => d.id));
    expect(unstarted).toEqual([]);
    expect(s.most()).toBe(3);
  });

  it('starts nothing after an answer that is not a 2xx', async () => {
    const s = sender((i) => (i === 2 ? 503 : 200));
    const { sent, unstarted } = await sendInTurn(items, 1, s.sendOne);
    expect(sent.map((x) => x.claimed.id)).toEqual(['dlv_0', 'dlv_1', 'dlv_2']);
    expect(unstarted.map((d) => d.id)).toEqual(items.slice(3).map((d) => d.id));
  });

  it('starts nothing once the batch was replaced, and gives back the rest unsent', async () => {
    const s = sender(() => 200);
    const { sent, unstarted } = await sendInTurn(items, 2, s.sendOne, () => s.started.length >= 4);
    expect(s.started).toEqual(items.slice(0, 4).map((d) => d.id));
    expect(sent).toHaveLength(4);
    expect(unstarted.map((d) => d.id)).toEqual(items.slice(4).map((d) => d.id));
  });
});
