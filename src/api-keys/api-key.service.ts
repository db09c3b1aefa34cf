// API keys: `svc_<id part>_<secret>`. Only the SHA-256 of the whole key is stored; the key is
// shown once. Authentication is served from an in-process cache so that most requests need no
// database round trip; a revocation empties it on every instance at once (access/invalidation.ts).
import crypto from 'node:crypto';
import { z } from 'zod';
import { inYears, text } from '../validation/text.ts';
import { config } from '../config.ts';
import { AppError, fromZodIssues } from '../errors/errors.ts';
import { API_SCOPES, type ApiKeyPrincipal, type ApiScope } from '../access/principal.ts';
import { toRoleAccess } from '../access/role-access.ts';
import { invalidateLocally, listenForInvalidations, SecurityCache, type Invalidation } from '../access/invalidation.ts';
import { pageById, type ConnectionArgs } from '../paging/page-by-key.ts';
import { apiKeyRepository } from './api-key.repository.ts';
import { OPERATOR, recordAudit, type AuditActor } from '../audit/audit.writer.ts';
import { onResetForTests } from '../reset-for-tests.ts';

const KEY_PATTERN = /^svc_([A-Za-z0-9]{10})_([A-Za-z0-9_-]{43})$/;
/** How long a resolved key is trusted without asking the database again, should its revocation's message be lost. */
const CACHE_TTL_MS = 10_000;
const CACHE_MAX = 10_000;
/** lastUsedAt is written at most this often per key. */
const TOUCH_INTERVAL_MS = 60_000;

const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

function randomAlnum(n: number): string {
  const bytes = crypto.randomBytes(n);
  return Array.from(bytes, (b) => ALNUM[b % ALNUM.length]).join('');
}

const hashKey = (key: string) => crypto.createHash('sha256').update(key).digest('hex');

const createKeyInput = z
  .object({
    name: text({ max: 100, min: 1, trim: true }),
    role: z.union([z.number().int().positive(), text({ max: 100, min: 1 })]),
    scopes: z.array(z.enum(API_SCOPES)).min(1).max(API_SCOPES.length),
    expiresAt: z.coerce.date().refine(inYears, 'must be a time between the years 1 and 9999').nullish(),
  })
  .strict();
export type CreateKeyInput = z.input<typeof createKeyInput>;

type Selection = Parameters<typeof apiKeyRepository.list>[2];
type KeyRow = NonNullable<Awaited<ReturnType<typeof apiKeyRepository.findByPrefix>>>;

function toPrincipal(row: KeyRow): ApiKeyPrincipal {
  const scopes = row.scopes.filter((s): s is ApiScope => (API_SCOPES as readonly string[]).includes(s));
  const u = row.serviceUser;
  return {
    kind: 'apiKey',
    workspace: { id: row.workspace.id, name: row.workspace.name, domain: row.workspace.domain },
    user: { id: u.id, userName: u.userName, fullName: u.fullName, roleId: u.roleId },
    role: toRoleAccess(u.role),
    scopes: new Set(scopes),
    apiKey: { id: row.id, name: row.name, prefix: row.prefix, scopes, expiresAt: row.expiresAt },
    limits: { requestsPerMinute: row.requestsPerMinute, maxWebhookSubscriptions: row.maxWebhookSubscriptions },
  };
}

interface CacheEntry {
  /** null: the key is unknown, revoked or stopped (cached too, so guessing keys does not load the database). */
  principal: ApiKeyPrincipal | null;
  /** The key's id and the accounts it depends on (its service account, its creator), also when refused. */
  keyId: number | null;
  accountIds: number[];
  hash: string;
  until: number;
}

/**
 * A key works while it is not revoked and neither its service account nor the person who created it
 * is deactivated (a deactivated person's keys stop with them, and work again if they are reactivated).
 */
function usable(row: KeyRow): boolean {
  return row.revokedAt === null && row.serviceUser.deactivatedAt === null && (row.createdBy === null || row.createdBy.deactivatedAt === null);
}
/**
 * A key's entry goes with the key, its role (boards, permissions changed), its service account and
 * the person who created it (deactivated or reactivated: the entry may be a refusal).
 */
function keyMatches(entry: CacheEntry, _token: string, i: Invalidation): boolean {
  if (i.kind === 'apiKey') return entry.keyId === i.id;
  if (i.kind === 'role') return entry.principal?.role.id === i.id;
  if (i.kind === 'user') return entry.accountIds.includes(i.id);
  return false;
}
const cache = new SecurityCache<CacheEntry>(CACHE_MAX, keyMatches);
const touchedAt = new Map<number, number>();
// A test file's fresh database (src/reset-for-tests.ts); the cache is cleared with the others (access/invalidation.ts).
onResetForTests(() => touchedAt.clear());

function timingSafeEqualHex(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ab.length === bb.length && crypto.timingSafeEqual(ab, bb);
}

export const apiKeyService = {
  /** Resolves a bearer token to its principal, or throws 401 invalid_token. */
  async authenticate(token: string, now = Date.now()): Promise<ApiKeyPrincipal> {
    const match = KEY_PATTERN.exec(token);
    if (!match) throw new AppError('invalid_token', 'The bearer token is not an API key of this service');
    const hash = hashKey(token);
    let entry = cache.get(token);
    if (!entry || entry.until < now) {
      listenForInvalidations();
      const generation = cache.generation;
      const row = await apiKeyRepository.findByPrefix(`svc_${match[1]}`);
      const valid = row !== null && usable(row) && timingSafeEqualHex(row.secretHash, hash);
      entry = {
        principal: valid ? toPrincipal(row) : null,
        keyId: row?.id ?? null,
        accountIds: row ? [row.serviceUserId, ...(row.createdById === null ? [] : [row.createdById])] : [],
        hash,
        until: now + CACHE_TTL_MS,
      };
      // Not stored if a revocation happened meanwhile: the row read may be the revoked one.
      cache.set(token, entry, generation);
    }
    const principal = entry.principal;
    if (!principal) throw new AppError('invalid_token', 'The API key is unknown, revoked or no longer active');
    if (principal.apiKey.expiresAt && principal.apiKey.expiresAt.getTime() <= now) {
      throw new AppError('invalid_token', 'The API key has expired');
    }
    const last = touchedAt.get(principal.apiKey.id) ?? 0;
    if (now - last > TOUCH_INTERVAL_MS) {
      touchedAt.set(principal.apiKey.id, now);
      apiKeyRepository.touch(principal.apiKey.id, new Date(now)).catch(() => touchedAt.delete(principal.apiKey.id));
    }
    return principal;
  },

  /**
   * The principal of a key by its id, read afresh (no cache), for work done later in its name (a
   * bulk job's items); null once the key is revoked or expired.
   */
  async principalById(id: number, now = Date.now()): Promise<ApiKeyPrincipal | null> {
    const row = await apiKeyRepository.findById(id);
    if (!row || !usable(row) || (row.expiresAt && row.expiresAt.getTime() <= now)) return null;
    return toPrincipal(row);
  },

  /** The "New key" action. Returns the key value, which is never shown again. `actor`: who is recorded in the audit log. */
  async create(workspaceId: number, input: CreateKeyInput, createdById: number | null, actor: AuditActor = OPERATOR) {
    const parsed = createKeyInput.safeParse(input);
    if (!parsed.success) {
      throw new AppError('validation_failed', 'The key settings are not valid', { errors: fromZodIssues(parsed.error.issues) });
    }
    const { name, role, scopes, expiresAt } = parsed.data;
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      throw new AppError('validation_failed', 'The expiry date must be in the future', {
        errors: [{ path: '/expiresAt', message: 'must be in the future' }],
      });
    }
    const roleRow = await apiKeyRepository.findRole(workspaceId, role);
    if (!roleRow) {
      throw new AppError('validation_failed', `No role ${role} in this workspace`, { errors: [{ path: '/role', message: 'unknown role' }] });
    }
    const prefix = `svc_${randomAlnum(10)}`;
    const value = `${prefix}_${crypto.randomBytes(32).toString('base64url')}`;
    const row = await apiKeyRepository.create({
      workspaceId,
      name,
      prefix,
      secretHash: hashKey(value),
      scopes: [...new Set(scopes)],
      roleId: roleRow.id,
      expiresAt: expiresAt ?? null,
      createdById,
      requestsPerMinute: config.limits.requestsPerMinute,
      maxWebhookSubscriptions: config.limits.maxWebhookSubscriptions,
      workspaceLimit: config.limits.maxApiKeysPerWorkspace,
    }, (tx, created) =>
      recordAudit(tx, {
        workspaceId,
        actor,
        action: 'api_key.created',
        target: { type: 'api_key', id: created.id },
        before: null,
        after: { name, scopes: [...new Set(scopes)], roleId: roleRow.id, expiresAt: expiresAt ?? null },
      }),
    );
    if ('limitReached' in row) {
      throw new AppError('api_key_limit_reached', `This workspace has ${config.limits.maxApiKeysPerWorkspace} usable API keys, its limit; revoke one first`);
    }
    return { value, principal: toPrincipal(row), record: row };
  },

  /** Newest first (by id), revoked ones included. */
  list(workspaceId: number, args: ConnectionArgs, query: Selection) {
    return pageById(args, true, (page) => apiKeyRepository.list(workspaceId, page, query));
  },

  async revoke(workspaceId: number, id: number, actor: AuditActor = OPERATOR) {
    const at = new Date();
    const { count } = await apiKeyRepository.revoke(workspaceId, id, at, (tx) =>
      recordAudit(tx, { workspaceId, actor, action: 'api_key.revoked', target: { type: 'api_key', id }, before: { revokedAt: null }, after: { revokedAt: at } }),
    );
    if (count === 0) throw new AppError('not_found', `No active API key ${id}`);
    invalidateLocally({ kind: 'apiKey', id });
  },
};
