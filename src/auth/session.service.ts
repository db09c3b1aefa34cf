// Browser sessions of the settings UI. The cookie holds 32 random bytes; the database keeps only
// their SHA-256 (Session.id), so a leaked table signs nobody in. A session ends after 12 hours
// without use or 7 days after sign-in, whichever comes first. Like API keys, a resolved session
// is served from an in-process cache that a sign-out empties on every instance at once
// (access/invalidation.ts). Password guessing is throttled before any hash (sign-in-throttle.ts).
import crypto from 'node:crypto';
import { z } from 'zod';
import { parse, serialize } from 'hono/utils/cookie';
import { config } from '../config.ts';
import { AppError, fromZodIssues } from '../errors/errors.ts';
import { hashPassword, needsRehash, verifyPassword } from '../access/password.ts';
import { scopesForRole, type UserPrincipal } from '../access/principal.ts';
import { toRoleAccess } from '../access/role-access.ts';
import { sessionRepository } from './session.repository.ts';
import { invalidateLocally, listenForInvalidations, SecurityCache, type Invalidation } from '../access/invalidation.ts';
import { createSignInThrottle } from './sign-in-throttle.ts';
import { notificationService } from '../notifications/notification.service.ts';
import { sharedRedis } from '../rate-limit/redis.ts';
import { NO_SOCKET } from '../rate-limit/client-address.ts';
import { recordFailedSignIns, signedIn, signedOut } from './session-audit.ts';
import { logger } from '../logger.ts';
import { onResetForTests } from '../reset-for-tests.ts';

export const IDLE_TIMEOUT_MS = 12 * 60 * 60_000;
const ABSOLUTE_LIFETIME_MS = 7 * 24 * 60 * 60_000;
const CACHE_TTL_MS = 10_000;
const CACHE_MAX = 10_000;
/** lastSeenAt is written at most this often per session. */
const TOUCH_INTERVAL_MS = 60_000;
/**
 * Live sessions per person: a sign-in beyond it signs the oldest out, with a notice. Enough for
 * every browser and device one person uses; it bounds the rows (and cache entries) one account can make.
 */
export const MAX_LIVE_SESSIONS = 10;
/** One e-mail may have an account in several workspaces; no one has more than this. */
const MAX_ACCOUNTS_PER_EMAIL = 10;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const secureCookie = () => new URL(config.http.publicBaseUrl).protocol === 'https:';
/** Over https the `__Host-` prefix makes browsers insist on Secure, Path=/ and no Domain. */
const sessionCookieName = () => (secureCookie() ? '__Host-session' : 'session');

function sessionCookie(value: string, maxAgeSeconds: number): string {
  return serialize(sessionCookieName(), value, { path: '/', httpOnly: true, sameSite: 'Lax', secure: secureCookie(), maxAge: maxAgeSeconds });
}

/** The session cookie's value, when the request carries one. */
export function sessionTokenOf(headers: Headers): string | undefined {
  const header = headers.get('cookie');
  const name = sessionCookieName();
  return header === null ? undefined : parse(header, name)[name];
}

const hashToken = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

const signInInput = z
  .object({
    email: z.string().trim().min(1).max(320),
    password: z.string().min(1).max(1024),
    workspace: z.string().trim().min(1).max(2048).optional(),
  })
  .strict();
type SignInInput = z.input<typeof signInInput>;

const WRONG_CREDENTIALS = 'The e-mail or password is wrong, or the account is deactivated';

/** Verified when no account matches, so an unknown e-mail costs the same time as a wrong password. */
let dummyHash: Promise<string> | undefined;
const unusableHash = () => (dummyHash ??= hashPassword(crypto.randomBytes(32).toString('base64url')));

type UserRow = Awaited<ReturnType<typeof sessionRepository.findHumansByEmail>>[number];

function toPrincipal(user: UserRow, sessionId: string, csrfToken: string): UserPrincipal {
  const role = toRoleAccess(user.role);
  return {
    kind: 'user',
    workspace: { id: user.workspace.id, name: user.workspace.name, domain: user.workspace.domain },
    user: { id: user.id, userName: user.userName, fullName: user.fullName, roleId: user.roleId },
    role,
    scopes: scopesForRole(role),
    sessionId,
    csrfToken,
    email: user.email,
    isAdmin: user.isAdmin,
  };
}

interface CacheEntry {
  /** null: unknown, expired or deactivated (cached too, so junk cookies do not load the database). */
  principal: UserPrincipal | null;
  /** The session's person, also when `principal` is null (deactivated). */
  userId: number | null;
  expiresAt: number;
  lastSeenAt: number;
  until: number;
}
/** A session's entry goes with the session, its person (role changed, deactivated) and its role (boards, permissions changed). */
function sessionMatches(entry: CacheEntry, id: string, i: Invalidation): boolean {
  if (i.kind === 'session') return id === i.id;
  if (i.kind === 'user') return entry.userId === i.id;
  if (i.kind === 'role') return entry.principal?.role.id === i.id;
  return false;
}
const cache = new SecurityCache<CacheEntry>(CACHE_MAX, sessionMatches);

let throttle: ReturnType<typeof createSignInThrottle> | undefined;
const signInThrottle = () =>
  (throttle ??= createSignInThrottle({
    maxConsecutiveFailures: config.auth.signInMaxConsecutiveFailures,
    maxFailuresPerAddressPerDay: config.auth.signInMaxFailuresPerAddressPerDay,
    redis: sharedRedis(),
  }));
// A test file's fresh database (src/reset-for-tests.ts): the failures counted so far (every
// in-process request comes from the same address) and the dummy hash go too.
onResetForTests(() => {
  throttle = undefined;
  dummyHash = undefined;
});

export const sessionService = {
  /**
   * Checks the password and opens a session; `cookie` is the Set-Cookie value to send.
   * `clientAddress` keys the throttle (rate-limit/client-address.ts).
   */
  async signIn(input: SignInInput, { clientAddress = NO_SOCKET, now = Date.now() } = {}): Promise<{ principal: UserPrincipal; cookie: string }> {
    const parsed = signInInput.safeParse(input);
    if (!parsed.success) {
      throw new AppError('validation_failed', 'The sign-in details are not valid', { errors: fromZodIssues(parsed.error.issues) });
    }
    const { email, password, workspace } = parsed.data;
    const attempt = await signInThrottle().begin(email, clientAddress);
    const candidates = await sessionRepository.findHumansByEmail(email, workspace, MAX_ACCOUNTS_PER_EMAIL);
    // One full hash per candidate whatever its state, so timing does not tell unknown,
    // deactivated and wrong-password apart.
    if (candidates.length === 0) await verifyPassword(password, await unusableHash());
    const matches: UserRow[] = [];
    for (const user of candidates) {
      const ok = await verifyPassword(password, user.passwordHash ?? (await unusableHash()));
      if (ok && user.passwordHash !== null && user.deactivatedAt === null) matches.push(user);
    }
    if (matches.length === 0) {
      // Not awaited: the answer must take as long for an e-mail with an account as for one without.
      recordFailedSignIns(candidates, clientAddress, new Date(now)).catch((err: unknown) => logger.warn({ err }, 'a failed sign-in could not be recorded in the audit log'));
      throw new AppError('unauthenticated', WRONG_CREDENTIALS);
    }
    await attempt.succeeded();
    if (matches.length > 1) {
      throw new AppError('validation_failed', 'This e-mail signs in to several workspaces: name the workspace', {
        errors: [{ path: '/workspace', message: 'the workspace address is needed' }],
      });
    }
    const user = matches[0];
    // A hash of an earlier scheme is replaced now that the password is known (access/password.ts).
    if (needsRehash(user.passwordHash!)) await sessionRepository.replacePasswordHash(user.id, user.passwordHash!, await hashPassword(password));
    const token = crypto.randomBytes(32).toString('base64url');
    const id = hashToken(token);
    const csrfToken = crypto.randomBytes(32).toString('base64url');
    const signedOut = await sessionRepository.create({ id, userId: user.id, csrfToken, expiresAt: new Date(now + ABSOLUTE_LIFETIME_MS) }, new Date(now), MAX_LIVE_SESSIONS, signedIn(user, clientAddress));
    for (const ended of signedOut) invalidateLocally({ kind: 'session', id: ended });
    if (signedOut.length) {
      await notificationService.notify(user.workspaceId, [user.id], {
        kind: 'session.signed_out',
        title: 'Signed out of your oldest session',
        body: `You are signed in at most ${MAX_LIVE_SESSIONS} times at once, so this sign-in ended the oldest session. If that was not you, change your password.`,
      });
    }
    return { principal: toPrincipal(user, id, csrfToken), cookie: sessionCookie(token, ABSOLUTE_LIFETIME_MS / 1000) };
  },

  /** The signed-in person for a cookie value, or null when the session is unknown or over. */
  async authenticate(token: string, now = Date.now()): Promise<UserPrincipal | null> {
    if (!TOKEN_PATTERN.test(token)) return null;
    const id = hashToken(token);
    let entry = cache.get(id);
    if (!entry || entry.until < now) {
      listenForInvalidations();
      const generation = cache.generation;
      const row = await sessionRepository.findById(id);
      const valid = row !== null && row.user.deactivatedAt === null;
      entry = {
        principal: valid ? toPrincipal(row.user, row.id, row.csrfToken) : null,
        userId: row?.userId ?? null,
        expiresAt: row?.expiresAt.getTime() ?? 0,
        lastSeenAt: row?.lastSeenAt.getTime() ?? 0,
        until: now + CACHE_TTL_MS,
      };
      // Not stored if a sign-out happened meanwhile: the row read may be the ended session.
      cache.set(id, entry, generation);
    }
    if (!entry.principal) return null;
    if (now >= entry.expiresAt || now - entry.lastSeenAt >= IDLE_TIMEOUT_MS) {
      await sessionService.end(id);
      return null;
    }
    if (now - entry.lastSeenAt > TOUCH_INTERVAL_MS) {
      const touched = entry;
      const previous = touched.lastSeenAt;
      touched.lastSeenAt = now;
      // A failed write is retried on the next request.
      sessionRepository.touch(id, new Date(now)).catch(() => {
        touched.lastSeenAt = previous;
      });
    }
    return entry.principal;
  },

  /** Ends a session (sign-out, expiry); returns the Set-Cookie value that clears the cookie. `signedOutBy`: a sign-out, recorded in the audit log. */
  async end(sessionId: string, signedOutBy?: UserPrincipal): Promise<string> {
    try {
      await sessionRepository.delete(sessionId, signedOutBy && signedOut({ id: signedOutBy.user.id, workspaceId: signedOutBy.workspace.id, email: signedOutBy.email, userName: signedOutBy.user.userName }));
    } finally {
      invalidateLocally({ kind: 'session', id: sessionId });
    }
    return sessionCookie('', 0);
  },
};
