// webhookLimits states the bounds the server enforces on a subscription's settings (the settings
// form reads its rate floor from here): the same numbers as the refusals.
import { describe, expect, it } from 'vitest';
import { config } from '../../../src/config.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';

const LIMITS = '{ webhookLimits { minRatePerSecond maxInFlight } }';

describe('webhookLimits', () => {
  it('answers the rate floor and in-flight maximum the server enforces, to webhooks:manage only', async () => {
    const ws = await createTestWorkspace('Webhook limits');
    const key = (await ws.key({ scopes: ['webhooks:manage'] })).value;
    const res = await api('POST', '/graphql', { key, body: { query: LIMITS } });
    expect(res.body.data.webhookLimits).toEqual({ minRatePerSecond: config.webhooks.minRatePerSecond, maxInFlight: config.webhooks.maxInFlightLimit });

    const below = await api('POST', '/webhooks', { key, body: { url: 'https://hooks.example.com/limits', events: ['ticket.created'], ratePerSecond: config.webhooks.minRatePerSecond / 2 } });
    expect(below.status).toBe(422);
    expect(JSON.stringify(below.body)).toContain(`must be at least ${config.webhooks.minRatePerSecond}`);

    const narrow = (await ws.key({ scopes: ['tickets:read'] })).value;
    expect((await api('POST', '/graphql', { key: narrow, body: { query: LIMITS } })).body.errors[0].extensions.code).toBe('insufficient_scope');
    expect((await api('POST', '/graphql', { body: { query: LIMITS } })).body.errors[0].extensions.code).toBe('unauthenticated');
  });
});
