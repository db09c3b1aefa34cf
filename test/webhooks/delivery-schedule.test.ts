// The pure rules of the retry schedule and of Retry-After, and the AIMD bound as the database
// function applies it (release_delivery_slot, on PGlite or PostgreSQL).
import { describe, expect, it } from 'vitest';
import { jitteredDelay, MAX_ATTEMPTS, remainingSpanMs, RETRY_DELAYS_MS, RETRY_JITTER, retryDelay } from '../../workflows/delivery/schedule.ts';
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from '../../src/webhooks/retry-after.ts';
import { deliveryBoundsRepository } from '../../src/webhooks/delivery-bounds.repository.ts';
import { createTestWorkspace } from '../support/fixtures.ts';
import { createDelivery, createSubscription, subscriptionRow } from './fixtures.ts';
import { prisma } from '../../src/db/db.ts';

describe('retry delays', () => {
  it('jitter each delay within ±10% of the schedule, across the whole range of draws', () => {
    expect(MAX_ATTEMPTS).toBe(7);
    for (const [i, nominal] of RETRY_DELAYS_MS.entries()) {
      const draws = [0, 0.25, 0.5, 0.75, 0.999999].map((r) => jitteredDelay(i + 1, r)!);
      for (const d of draws) {
        expect(d).toBeGreaterThanOrEqual(Math.floor(nominal * (1 - RETRY_JITTER)));
        expect(d).toBeLessThanOrEqual(Math.ceil(nominal * (1 + RETRY_JITTER)));
      }
      // The band is used, not a point: the lowest and highest draws are ~20% apart.
      expect(draws.at(-1)! - draws[0]!).toBeGreaterThan(nominal * 0.19);
      expect(draws[2]).toBe(nominal);
    }
    expect(jitteredDelay(MAX_ATTEMPTS, 0.5)).toBeUndefined();
  });

  it('take a later Retry-After instead, capped at what remains of the schedule', () => {
    const oneMinute = 60_000;
    expect(retryDelay(1, oneMinute, null)).toEqual({ delayMs: oneMinute, retryAfterMs: 0 });
    // Earlier than the schedule: the schedule stands.
    expect(retryDelay(1, oneMinute, 5_000)).toEqual({ delayMs: oneMinute, retryAfterMs: 0 });
    expect(retryDelay(1, oneMinute, 3_600_000)).toEqual({ delayMs: 3_600_000, retryAfterMs: 3_600_000 - oneMinute });
    // A week after attempt 6: only its remaining 24 h.
    expect(remainingSpanMs(6)).toBe(24 * 3_600_000);
    expect(retryDelay(6, 24 * 3_600_000, 7 * 24 * 3_600_000).delayMs).toBe(24 * 3_600_000);
    expect(remainingSpanMs(1)).toBe(RETRY_DELAYS_MS.reduce((a, b) => a + b, 0));
  });
});

describe('Retry-After', () => {
  const now = new Date('2026-11-26T06:00:00.000Z');

  it('reads delay-seconds and HTTP dates', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Thu, 26 Nov 2026 07:30:00 GMT', now)).toBe(90 * 60_000);
    // A date in the past: at once.
    expect(parseRetryAfter('Wed, 25 Nov 2026 07:30:00 GMT', now)).toBe(0);
  });

  it('caps absurd values and ignores anything else', () => {
    expect(parseRetryAfter('99999999', now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('Fri, 26 Nov 2100 07:30:00 GMT', now)).toBe(MAX_RETRY_AFTER_MS);
    for (const bad of [undefined, '', '-5', '1.5', '1e3', '12345678901', 'soon', 'Thu, 31 Feb 2026 07:30:00 GMT', 'Thu, 26 Nov 2026 25:00:00 GMT',
      'Thursday, 26-Nov-26 07:30:00 GMT', 'Thu Nov 26 07:30:00 2026', '2026-11-26T07:30:00Z', 'Thu, 26 Nov 2026 07:30:00 UTC']) {
      expect(parseRetryAfter(bad, now), String(bad)).toBeNull();
    }
  });
});

describe('the in-flight bound (AIMD)', () => {
  const settings = { limit: 50, leaseMs: 60_000, waitLeaseMs: 600_000, lookAgainMs: 45_000 };

  it('halves on 429/503 (at most once a second, never below 1) and rises by one per bound’s worth of 2xx answers', async () => {
    const ws = await createTestWorkspace();
    const sub = await createSubscription(ws, { url: 'https://aimd.example.com/', maxInFlight: 8 });
    const ref = await createDelivery(ws, sub.id);
    const seq = (await prisma.event.findUniqueOrThrow({ where: { id: ref.eventId } })).seq;
    let t = Date.parse('2026-11-26T06:00:00.000Z');
    const attempt = async (signal: 'success' | 'overload' | 'none', stepMs = 2_000) => {
      t += stepMs;
      const now = new Date(t);
      expect(await deliveryBoundsRepository.acquire({ deliveryId: ref.deliveryId, subscriptionId: sub.id, seq, workflowId: 'wf', now, rateReserved: false, attempt: 1, retryDelayMs: null }, settings)).toEqual({ outcome: 'acquired' });
      await deliveryBoundsRepository.release({ deliveryId: ref.deliveryId, subscriptionId: sub.id, now, signal, retryAfterUntil: null }, settings);
      return (await subscriptionRow(sub.id)).inFlightBound;
    };
    expect(await attempt('success')).toBeNull();
    expect(await attempt('overload')).toBe(4);
    // A second overload within the second is the same congestion: no second halving.
    expect(await attempt('overload', 100)).toBe(4);
    expect(await attempt('overload')).toBe(2);
    expect(await attempt('none')).toBe(2);
    expect(await attempt('overload')).toBe(1);
    expect(await attempt('overload')).toBe(1);
    // Additive increase: one 2xx at bound 1, two at bound 2, …; back to the setting (null) at 8.
    expect(await attempt('success')).toBe(2);
    expect(await attempt('success')).toBe(2);
    expect(await attempt('success')).toBe(3);
    for (let i = 0; i < 3 + 4 + 5 + 6; i++) await attempt('success');
    expect(await attempt('success')).toBe(7);
    for (let i = 0; i < 5; i++) expect(await attempt('success')).toBe(7);
    expect(await attempt('success')).toBeNull();
  });

  it('lets no more than the bound hold slots, and hands a freed slot to the oldest waiting delivery', async () => {
    const ws = await createTestWorkspace();
    const sub = await createSubscription(ws, { url: 'https://slots.example.com/', maxInFlight: 2 });
    const refs: Awaited<ReturnType<typeof createDelivery>>[] = [];
    for (let i = 0; i < 4; i++) refs.push(await createDelivery(ws, sub.id));
    const seqs = await Promise.all(refs.map(async (r) => (await prisma.event.findUniqueOrThrow({ where: { id: r.eventId } })).seq));
    const now = new Date();
    const acquire = (i: number) =>
      deliveryBoundsRepository.acquire({ deliveryId: refs[i]!.deliveryId, subscriptionId: sub.id, seq: seqs[i]!, workflowId: `wf-${i}`, now, rateReserved: false, attempt: 1, retryDelayMs: null }, settings);
    // The newest two come first and take both slots; the older two wait.
    expect(await acquire(3)).toEqual({ outcome: 'acquired' });
    expect(await acquire(2)).toEqual({ outcome: 'acquired' });
    const lookAgain = new Date(now.getTime() + settings.lookAgainMs);
    expect(await acquire(1)).toEqual({ outcome: 'in_flight_bound', until: lookAgain });
    expect(await acquire(0)).toEqual({ outcome: 'in_flight_bound', until: lookAgain });
    // A freed slot goes to the oldest event's delivery, whatever order they asked in.
    const granted = await deliveryBoundsRepository.release({ deliveryId: refs[3]!.deliveryId, subscriptionId: sub.id, now, signal: 'success', retryAfterUntil: null }, settings);
    expect(granted).toEqual([expect.objectContaining({ deliveryId: refs[0]!.deliveryId, workflowId: 'wf-0', stolen: false })]);
    expect(await acquire(0)).toEqual({ outcome: 'acquired' });
    // The other still waits: two are held.
    expect(await acquire(1)).toEqual({ outcome: 'in_flight_bound', until: lookAgain });
    // A held slot of a worker that died comes free once its lease is over.
    const later = new Date(now.getTime() + settings.leaseMs + 1_000);
    expect(
      await deliveryBoundsRepository.acquire({ deliveryId: refs[1]!.deliveryId, subscriptionId: sub.id, seq: seqs[1]!, workflowId: 'wf-1', now: later, rateReserved: false, attempt: 1, retryDelayMs: null }, settings),
    ).toEqual({ outcome: 'acquired' });
  });

  it('has the head of a long queue look again soon and those further back later, so that waiting deliveries do not poll in step', async () => {
    const ws = await createTestWorkspace();
    const sub = await createSubscription(ws, { url: 'https://queue.example.com/', maxInFlight: 2 });
    const refs: Awaited<ReturnType<typeof createDelivery>>[] = [];
    for (let i = 0; i < 10; i++) refs.push(await createDelivery(ws, sub.id));
    const seqs = await Promise.all(refs.map(async (r) => (await prisma.event.findUniqueOrThrow({ where: { id: r.eventId } })).seq));
    const now = new Date();
    // A place is kept 5 min: no one waits more than 2.5 min before looking again.
    const short = { ...settings, waitLeaseMs: 300_000 };
    const acquire = (i: number) =>
      deliveryBoundsRepository.acquire({ deliveryId: refs[i]!.deliveryId, subscriptionId: sub.id, seq: seqs[i]!, workflowId: `wf-${i}`, now, rateReserved: false, attempt: 1, retryDelayMs: null }, short);
    expect(await acquire(0)).toEqual({ outcome: 'acquired' });
    expect(await acquire(1)).toEqual({ outcome: 'acquired' });
    const after = async (i: number) => {
      const r = await acquire(i);
      expect(r.outcome).toBe('in_flight_bound');
      return r.outcome === 'acquired' ? NaN : (r.until!.getTime() - now.getTime()) / 1000;
    };
    // Places 0 to 7 in the queue, a bound's worth (2) per step of 45 s, at most half the lease.
    const looks: number[] = [];
    for (let i = 2; i < 10; i++) looks.push(await after(i));
    expect(looks).toEqual([45, 45, 90, 90, 135, 135, 150, 150]);
  });

  it('lets a release take the oldest waiting delivery\'s attempt to send it on its behalf, the slot still counted, its own delivery not sending meanwhile', async () => {
    const ws = await createTestWorkspace();
    const sub = await createSubscription(ws, { url: 'https://steal.example.com/', maxInFlight: 1 });
    const refs: Awaited<ReturnType<typeof createDelivery>>[] = [];
    for (let i = 0; i < 3; i++) refs.push(await createDelivery(ws, sub.id));
    const seqs = await Promise.all(refs.map(async (r) => (await prisma.event.findUniqueOrThrow({ where: { id: r.eventId } })).seq));
    const now = new Date();
    const acquire = (i: number) =>
      deliveryBoundsRepository.acquire(
        { deliveryId: refs[i]!.deliveryId, subscriptionId: sub.id, seq: seqs[i]!, workflowId: `wf-${i}`, now, rateReserved: false, attempt: 2, retryDelayMs: 330_000 },
        settings,
      );
    const release = (i: number, steal: boolean) =>
      deliveryBoundsRepository.release({ deliveryId: refs[i]!.deliveryId, subscriptionId: sub.id, now, signal: 'success', retryAfterUntil: null, steal }, settings);
    expect(await acquire(0)).toEqual({ outcome: 'acquired' });
    expect((await acquire(1)).outcome).toBe('in_flight_bound');
    expect((await acquire(2)).outcome).toBe('in_flight_bound');
    // The oldest waiting one's attempt is the releaser's, with the number and delay it stored.
    const [taken, ...rest] = await release(0, true);
    expect(rest).toEqual([]);
    expect(taken).toEqual(expect.objectContaining({ deliveryId: refs[1]!.deliveryId, workflowId: 'wf-1', stolen: true, attempt: 2, retryDelayMs: 330_000 }));
    // While it runs, its own delivery does not send (it looks again when the lease ends), and it fills the bound.
    expect(await acquire(1)).toEqual({ outcome: 'in_flight_bound', until: new Date(now.getTime() + settings.leaseMs) });
    expect((await acquire(2)).outcome).toBe('in_flight_bound');
    // Without steal, the next one is handed the slot to send itself.
    expect(await release(1, false)).toEqual([expect.objectContaining({ deliveryId: refs[2]!.deliveryId, stolen: false })]);
    expect(await acquire(2)).toEqual({ outcome: 'acquired' });
  });
});
