// The service's Temporal client retries a wake-up that met a run in the moment it closes after
// tens of milliseconds, not the SDK's 1.4–2 s for a server out of resources (src/temporal/client.ts).
import { describe, expect, it } from 'vitest';
import { CLOSING_RETRY_MS, firstRetryMs } from '../../src/temporal/client.ts';

const RESOURCE_EXHAUSTED = 8;
const UNAVAILABLE = 14;

describe('the Temporal client’s retries', () => {
  it('tries a call refused because its workflow is closing again after CLOSING_RETRY_MS; keeps the SDK’s delays otherwise', () => {
    expect(firstRetryMs({ code: RESOURCE_EXHAUSTED, details: 'workflow operation can not be applied because workflow is closing' })).toBe(CLOSING_RETRY_MS);
    expect(CLOSING_RETRY_MS).toBeLessThan(100);
    expect(firstRetryMs({ code: RESOURCE_EXHAUSTED, details: 'namespace rate limit exceeded' })).toBe(1_000);
    expect(firstRetryMs({ code: UNAVAILABLE, details: 'connect ECONNREFUSED' })).toBe(100);
  });
});
