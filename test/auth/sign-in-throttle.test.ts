// Password guessing through signIn is throttled before any password is hashed: consecutive
// failures per e-mail and client address, failures per address per day (README, "People").
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

// Counts the scrypt hashes signIn runs, whatever they take.
const hashes = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../src/access/password.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/access/password.ts')>();
  return {
    ...original,
    verifyPassword: (...args: Parameters<typeof original.verifyPassword>) => {
      hashes.count++;
      return original.verifyPassword(...args);
    },
  };
});

import { createTestWorkspace, randomSuffix } from '../support/fixtures.ts';
import { createApp } from '../../src/http/app.ts';
import { createSignInThrottle } from '../../src/auth/sign-in-throttle.ts';
import { AppError } from '../../src/errors/errors.ts';

const PASSWORD = 'correct horse battery staple';
const MAX_CONSECUTIVE = 10; // the default of SIGN_IN_MAX_CONSECUTIVE_FAILURES
const SIGN_IN = 'mutation($email: String!, $password: String!) { signIn(email: $email, password: $password) { id } }';

let nextAddress = 10;
const freshAddress = () => `198.51.100.${nextAddress++}`;

type App = ReturnType<typeof createApp>;

async function signIn(app: App, address: string, email: string, password: string) {
  const res = await app.fetch(
    new Request('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: SIGN_IN, variables: { email, password } }),
    }),
    { incoming: { socket: { remoteAddress: address } } },
  );
  const body = await res.json();
  return { code: (body.errors?.[0]?.extensions?.code as string | undefined) ?? 'ok', retryAfter: res.headers.get('retry-after'), body };
}

describe('sign-in throttling', () => {
  let app: App;
  let email: string;
  beforeAll(async () => {
    app = createApp();
    email = (await createTestWorkspace('Sign-in throttle')).admin.email!;
  });
  afterEach(() => {
    hashes.count = 0;
  });

  it(`refuses after ${MAX_CONSECUTIVE} wrong passwords in a row without hashing, and keeps refusing the right one`, async () => {
    const address = freshAddress();
    const codes: string[] = [];
    for (let i = 0; i < 50; i++) codes.push((await signIn(app, address, email, `wrong ${i}`)).code);
    expect(codes.slice(0, MAX_CONSECUTIVE)).toEqual(Array(MAX_CONSECUTIVE).fill('unauthenticated'));
    expect(codes.slice(MAX_CONSECUTIVE)).toEqual(Array(50 - MAX_CONSECUTIVE).fill('rate_limited'));
    expect(hashes.count).toBe(MAX_CONSECUTIVE);

    const right = await signIn(app, address, email, PASSWORD);
    expect(right.code).toBe('rate_limited');
    expect(right.body.data).toBeNull();
    expect(Number(right.retryAfter)).toBeGreaterThan(60);
    expect(right.body.errors[0].extensions.status).toBe(429);
    expect(hashes.count).toBe(MAX_CONSECUTIVE);
  });

  it('lets at most the limit of parallel wrong guesses reach the hash', async () => {
    const address = freshAddress();
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => signIn(app, address, email, `parallel ${i}`)));
    const codes = answers.map((a) => a.code);
    expect(codes.filter((c) => c === 'unauthenticated')).toHaveLength(MAX_CONSECUTIVE);
    expect(codes.filter((c) => c === 'rate_limited')).toHaveLength(40 - MAX_CONSECUTIVE);
    expect(hashes.count).toBe(MAX_CONSECUTIVE);
  });

  it('throttles an unknown e-mail exactly like a known one', async () => {
    const address = freshAddress();
    const unknown = `nobody-${randomSuffix()}@example.test`;
    const codes: string[] = [];
    for (let i = 0; i < MAX_CONSECUTIVE + 3; i++) codes.push((await signIn(app, address, unknown, 'guess')).code);
    expect(codes).toEqual([...Array(MAX_CONSECUTIVE).fill('unauthenticated'), 'rate_limited', 'rate_limited', 'rate_limited']);
    expect(hashes.count).toBe(MAX_CONSECUTIVE);
  });

  it('starts the count again after a successful sign-in', async () => {
    const address = freshAddress();
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < MAX_CONSECUTIVE - 1; i++) expect((await signIn(app, address, email, 'wrong')).code).toBe('unauthenticated');
      expect((await signIn(app, address, email, PASSWORD)).code).toBe('ok');
    }
  });

  it('does not lock the account for people at other addresses', async () => {
    const attacker = freshAddress();
    for (let i = 0; i <= MAX_CONSECUTIVE; i++) await signIn(app, attacker, email, 'wrong');
    expect((await signIn(app, attacker, email, PASSWORD)).code).toBe('rate_limited');
    expect((await signIn(app, freshAddress(), email, PASSWORD)).code).toBe('ok');
  });
});

describe('the throttle over time', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (err: AppError) => ({ code: err.code, retryAfter: Number(err.headers?.['Retry-After']) }),
    );

  it('lets the pair try again once its Retry-After has passed', async () => {
    vi.useFakeTimers();
    const throttle = createSignInThrottle({ maxConsecutiveFailures: 3, maxFailuresPerAddressPerDay: 100 });
    for (let i = 0; i < 3; i++) await throttle.begin('a@example.test', '192.0.2.1');
    const refused = await refusal(throttle.begin('A@example.test', '192.0.2.1'));
    expect(refused).toEqual({ code: 'rate_limited', retryAfter: 3600 });
    vi.advanceTimersByTime(3599_000);
    expect(await refusal(throttle.begin('a@example.test', '192.0.2.1'))).toMatchObject({ code: 'rate_limited' });
    vi.advanceTimersByTime(3600_000);
    expect(await refusal(throttle.begin('a@example.test', '192.0.2.1'))).toBeUndefined();
  });

  it('limits failures per address per day across e-mails', async () => {
    vi.useFakeTimers();
    const throttle = createSignInThrottle({ maxConsecutiveFailures: 10, maxFailuresPerAddressPerDay: 5 });
    for (let i = 0; i < 5; i++) await throttle.begin(`user${i}@example.test`, '192.0.2.2');
    expect(await refusal(throttle.begin('other@example.test', '192.0.2.2'))).toEqual({ code: 'rate_limited', retryAfter: 86_400 });
    expect(await refusal(throttle.begin('other@example.test', '192.0.2.3'))).toBeUndefined();
    vi.advanceTimersByTime(86_400_000);
    expect(await refusal(throttle.begin('other@example.test', '192.0.2.2'))).toBeUndefined();
  });
});
