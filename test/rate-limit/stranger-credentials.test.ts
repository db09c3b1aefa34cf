// Strangers sending made-up credentials (issue 47, item 3): the client address is counted before a
// credential the caches do not know is looked up, so well-formed random keys and session cookies
// cost a stranger its address's allowance, not one database query each; and until a request is
// authenticated its statements take its address's lane of the fair turns, never a lane named by
// the credential it sent (N made-up keys would otherwise be N lanes outweighing every workspace).
import crypto from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestWorkspace } from '../support/fixtures.ts';
import { createApp } from '../../src/http/app.ts';
import { createAddressRateLimiter } from '../../src/rate-limit/address-rate-limiter.ts';
import { apiKeyRepository } from '../../src/api-keys/api-key.repository.ts';
import { sessionRepository } from '../../src/auth/session.repository.ts';
import { currentDatabaseLane } from '../../src/db/fair-turns.ts';

const LIMIT = 3;
const app = createApp({ anonymousRateLimiter: createAddressRateLimiter({ requestsPerMinute: LIMIT }) });
let nextAddress = 10;
/** A documentation address (TEST-NET-2) no other test uses. */
const freshAddress = () => `198.51.100.${nextAddress++}`;
const madeUpKey = () => `svc_${crypto.randomBytes(20).toString('hex').slice(0, 10)}_${crypto.randomBytes(32).toString('base64url').slice(0, 43)}`;

async function from(remoteAddress: string, path: string, init: RequestInit = {}) {
  const res = await app.fetch(new Request(`http://localhost${path}`, init), { incoming: { socket: { remoteAddress } } });
  await res.text();
  return res.status;
}

afterEach(() => vi.restoreAllMocks());

describe('strangers with made-up credentials', () => {
  beforeAll(async () => {
    await createTestWorkspace('Strangers');
  });

  it('looks up at most the address allowance of made-up keys, then refuses with 429 before any lookup', async () => {
    const lookups = vi.spyOn(apiKeyRepository, 'findByPrefix');
    const address = freshAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push(await from(address, '/public/v1/me', { headers: { authorization: `Bearer ${madeUpKey()}` } }));
    expect(statuses).toEqual([...Array(LIMIT).fill(401), ...Array(10 - LIMIT).fill(429)]);
    expect(lookups).toHaveBeenCalledTimes(LIMIT);
  });

  it('counts a made-up key once, not once before its lookup and again for its 401', async () => {
    const address = freshAddress();
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 1; i++) statuses.push(await from(address, '/public/v1/me', { headers: { authorization: `Bearer ${madeUpKey()}` } }));
    expect(statuses).toEqual([...Array(LIMIT).fill(401), 429]);
  });

  it('treats made-up session cookies on /graphql the same way', async () => {
    const lookups = vi.spyOn(sessionRepository, 'findById');
    const address = freshAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push(await from(address, '/graphql', { method: 'POST', headers: { 'content-type': 'application/json', cookie: `session=${crypto.randomBytes(32).toString('base64url')}` }, body: '{"query":"{ __typename }"}' }));
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
    expect(lookups).toHaveBeenCalledTimes(LIMIT);
  });

  it('refuses a key never resolved here from an exhausted address, and serves one it knows', async () => {
    const ws = await createTestWorkspace('Strangers, keys');
    const [known, unknown] = [await ws.key(), await ws.key()];
    expect(await from(freshAddress(), '/public/v1/me', { headers: { authorization: `Bearer ${known.value}` } })).toBe(200);
    const address = freshAddress();
    for (let i = 0; i < LIMIT; i++) await from(address, '/public/v1/me', { headers: { authorization: `Bearer ${madeUpKey()}` } });
    expect(await from(address, '/public/v1/me', { headers: { authorization: `Bearer ${unknown.value}` } })).toBe(429);
    for (let i = 0; i < LIMIT + 1; i++) expect(await from(address, '/public/v1/me', { headers: { authorization: `Bearer ${known.value}` } })).toBe(200);
  });

  it("keeps an unauthenticated request's lookup in its address's lane, whatever key it sends", async () => {
    const lanes: string[] = [];
    const findByPrefix = apiKeyRepository.findByPrefix.bind(apiKeyRepository);
    vi.spyOn(apiKeyRepository, 'findByPrefix').mockImplementation((...args) => (lanes.push(currentDatabaseLane()), findByPrefix(...args)));
    const address = freshAddress();
    await Promise.all([madeUpKey(), madeUpKey()].map((key) => from(address, '/public/v1/me', { headers: { authorization: `Bearer ${key}` } })));
    expect(lanes).toEqual([`address:${address}`, `address:${address}`]);
  });

  it("keeps an unauthenticated request's session lookup in its address's lane, whatever cookie it sends", async () => {
    const lanes: string[] = [];
    const findById = sessionRepository.findById.bind(sessionRepository);
    vi.spyOn(sessionRepository, 'findById').mockImplementation((...args) => (lanes.push(currentDatabaseLane()), findById(...args)));
    const address = freshAddress();
    const cookie = () => `session=${crypto.randomBytes(32).toString('base64url')}`;
    await Promise.all(
      [cookie(), cookie()].map((c) => from(address, '/graphql', { method: 'POST', headers: { 'content-type': 'application/json', cookie: c }, body: '{"query":"{ __typename }"}' })),
    );
    expect(lanes).toEqual([`address:${address}`, `address:${address}`]);
  });
});
