// The pure rules of the retry schedule, of Retry-After, and of the delivery run's state: the
// in-flight bound (AIMD), the pipeline depth and the rate (GCRA).
import { describe, expect, it } from 'vitest';
import { jitteredDelay, MAX_ATTEMPTS, remainingSpanMs, RETRY_DELAYS_MS, RETRY_JITTER, retryDelay } from '../../../src/webhooks/message/schedule.ts';
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from '../../../src/webhooks/message/retry-after.ts';
import { afterBatch, effectiveInFlight, depthOf, initialRunState, rateAllowance, spendRate } from '../../../src/webhooks/delivery/run-state.ts';
import { FAST_ANSWER_MS, PIPELINE_DEPTH } from '../../../src/webhooks/delivery/constants.ts';

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
      expect(draws.at(-1)! - draws[0]).toBeGreaterThan(nominal * 0.19);
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

describe("the run's in-flight bound (AIMD)", () => {
  const settings = { maxInFlight: 8, ratePerSecond: null, strict: false };
  const answers = (succeeded: number, overloaded = false) => ({ attempted: succeeded, succeeded, overloaded, retryAfterUntil: null, slowestMs: null });

  it('halves once per batch with a 429/503 (never below 1) and rises by one per bound’s worth of 2xx answers, up to maxInFlight', () => {
    let state = initialRunState();
    expect(effectiveInFlight(settings, state.effectiveInFlight)).toBe(8);
    state = afterBatch(state, settings, answers(3, true));
    expect(effectiveInFlight(settings, state.effectiveInFlight)).toBe(4);
    for (const expected of [2, 1, 1]) {
      state = afterBatch(state, settings, answers(0, true));
      expect(effectiveInFlight(settings, state.effectiveInFlight)).toBe(expected);
    }
    // One success at bound 1 raises it to 2; two more to 3; three more to 4 …
    state = afterBatch(state, settings, answers(1));
    expect(effectiveInFlight(settings, state.effectiveInFlight)).toBe(2);
    state = afterBatch(state, settings, answers(1));
    expect(effectiveInFlight(settings, state.effectiveInFlight)).toBe(2);
    state = afterBatch(state, settings, answers(1));
    expect(effectiveInFlight(settings, state.effectiveInFlight)).toBe(3);
    for (let i = 0; i < 3 + 4 + 5 + 6 + 7; i++) state = afterBatch(state, settings, answers(1));
    expect(effectiveInFlight(settings, state.effectiveInFlight)).toBe(8);
    // … and back at maxInFlight the bound is the subscription's again (a later raise of maxInFlight applies at once).
    expect(state.effectiveInFlight).toBeNull();
    expect(effectiveInFlight({ ...settings, maxInFlight: 20 }, state.effectiveInFlight)).toBe(20);
  });

  it('halves after a batch with an attempt that got no answer at all, as after a 429 (once a batch, even with both)', () => {
    const unanswered = (overloaded: boolean) => ({ attempted: 3, succeeded: 0, overloaded, unanswered: true, retryAfterUntil: null, slowestMs: 10_000 });
    let state = afterBatch(initialRunState(), settings, unanswered(false));
    expect(effectiveInFlight(settings, state.effectiveInFlight)).toBe(4);
    expect(depthOf(state, settings)).toBe(1);
    state = afterBatch(state, settings, unanswered(true));
    expect(effectiveInFlight(settings, state.effectiveInFlight)).toBe(2);
    for (let i = 0; i < 3; i++) state = afterBatch(state, settings, unanswered(false));
    expect(effectiveInFlight(settings, state.effectiveInFlight)).toBe(1);
    state = afterBatch(state, settings, answers(1));
    expect(effectiveInFlight(settings, state.effectiveInFlight)).toBe(2);
    // A batch recorded before the field existed (a replayed history) moves the bound as it did then.
    expect(effectiveInFlight(settings, afterBatch(initialRunState(), settings, { attempted: 3, succeeded: 0, overloaded: false, retryAfterUntil: null, slowestMs: 10 }).effectiveInFlight)).toBe(8);
  });

  it('is 1 for a strictly ordered subscription, whatever its maxInFlight', () => {
    expect(effectiveInFlight({ ...settings, strict: true }, initialRunState().effectiveInFlight)).toBe(1);
  });

  it("keeps the latest Retry-After of the receiver's answers", () => {
    const state = afterBatch(initialRunState(), settings, { attempted: 1, succeeded: 0, overloaded: true, retryAfterUntil: 5_000, slowestMs: 10 });
    expect(afterBatch(state, settings, { attempted: 1, succeeded: 1, overloaded: false, retryAfterUntil: 2_000, slowestMs: 10 }).retryAfterUntil).toBe(5_000);
  });
});

describe("the run's pipeline depth", () => {
  const settings = { maxInFlight: 4, ratePerSecond: null, strict: false };
  const batch = (attempted: number, succeeded: number, slowestMs: number | null, overloaded = false) => ({ attempted, succeeded, slowestMs, overloaded, retryAfterUntil: null });

  it(`goes ${PIPELINE_DEPTH} rounds deep after a batch answered all 2xx within ${FAST_ANSWER_MS} ms, one round after anything else`, () => {
    const start = initialRunState();
    expect(depthOf(start, settings)).toBe(1);
    const fast = afterBatch(start, settings, batch(4, 4, FAST_ANSWER_MS));
    expect(depthOf(fast, settings)).toBe(PIPELINE_DEPTH);
    // A slow answer, a failure or an overload each bring it back to one round.
    expect(depthOf(afterBatch(fast, settings, batch(4, 4, FAST_ANSWER_MS + 1)), settings)).toBe(1);
    expect(depthOf(afterBatch(fast, settings, batch(4, 3, 10)), settings)).toBe(1);
    expect(depthOf(afterBatch(fast, settings, batch(4, 4, 10, true)), settings)).toBe(1);
    // A batch that sent nothing (all given back) leaves it as it was.
    expect(depthOf(afterBatch(fast, settings, batch(0, 0, null)), settings)).toBe(PIPELINE_DEPTH);
  });

  it('is one round when strictly ordered', () => {
    const fast = afterBatch(initialRunState(), settings, batch(1, 1, 5));
    expect(depthOf(fast, { ...settings, strict: true })).toBe(1);
  });
});

describe("the run's rate (GCRA)", () => {
  it('lets a second’s worth start at once, then one per interval', () => {
    const t0 = 1_000_000;
    let state = initialRunState();
    expect(rateAllowance(state, 5, t0)).toEqual({ starts: 5, nextAt: null });
    state = spendRate(state, 5, t0, 5);
    expect(rateAllowance(state, 5, t0)).toEqual({ starts: 0, nextAt: t0 + 200 });
    expect(rateAllowance(state, 5, t0 + 199).starts).toBe(0);
    expect(rateAllowance(state, 5, t0 + 200).starts).toBe(1);
    // Idle time banks no more than a second's worth.
    expect(rateAllowance(state, 5, t0 + 60_000).starts).toBe(5);
  });

  it('spaces a slow rate: 0.5/s starts one every 2 s', () => {
    const t0 = 5_000_000;
    let state = spendRate(initialRunState(), 0.5, t0, 1);
    expect(rateAllowance(state, 0.5, t0 + 1_999)).toEqual({ starts: 0, nextAt: t0 + 2_000 });
    state = spendRate(state, 0.5, t0 + 2_000, 1);
    expect(rateAllowance(state, 0.5, t0 + 2_000).starts).toBe(0);
  });

  it('does not limit a subscription without a rate', () => {
    expect(rateAllowance(initialRunState(), null, 0).starts).toBeGreaterThan(1_000);
  });
});
