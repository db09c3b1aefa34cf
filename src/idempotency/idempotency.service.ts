// Idempotency-Key (draft-ietf-httpapi-idempotency-key-header, with Stripe's semantics) for REST
// routes marked `idempotent`. The first request with a key claims it by inserting a record
// (unique per API key and key); repeats with the same request replay the stored answer, a
// repeat with another request is refused (422), and one made while the first still runs gets 409.
//
// What is kept, as Stripe does: every answer the operation itself gave, 2xx and 4xx alike, is
// stored and replayed for 24 hours. Failures that say nothing about the operation release the
// key so that a retry runs afresh: 5xx and unexpected errors (unlike Stripe, which replays them:
// our operations commit in one transaction, so a failed one left nothing to protect), 401 and
// 403 (it never ran) and 429 (try again later). Input that fails validation never claims a
// key: the route handler validates before calling here.
import crypto from 'node:crypto';
import { AppError, toProblem } from '../errors/errors.ts';
import { logger } from '../logger.ts';
import { canonicalJson } from '../validation/canonical-json.ts';
import { idempotencyRepository } from './idempotency.repository.ts';

export const RETENTION_MS = 24 * 60 * 60 * 1000;
/**
 * A record still in progress after this long belongs to a request that died with its process;
 * it stops blocking its key for the rest of the 24 hours. Far beyond any real request's
 * duration; the price is that a change committed just before such a crash may be made again.
 */
export const ABANDONED_AFTER_MS = 5 * 60 * 1000;
const KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;

export interface RouteResult {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

interface IdempotentCall {
  apiKeyId: number;
  key: string;
  /** `requestHash(method, path, body)` of this request. */
  requestHash: string;
  requestId: string;
  /** The status the route answers on success. */
  successStatus: number;
}

/**
 * The key this request holds, handed to the operation. An operation that writes its change in
 * one statement stores its answer in that same statement (ticketRepository.insertCreatedTicket)
 * and sets `completed`: the change and the stored answer then commit together, so a crash
 * between them cannot leave the key in progress and, once abandoned, let a retry make the change
 * a second time. Otherwise runIdempotent stores the answer after the operation.
 */
export interface IdempotencyClaim {
  readonly recordId: number;
  /** The Idempotency-Key itself, for an operation that keys work of its own on it (a recovery's workflow id). */
  readonly key: string;
  /** With the body, what a replay answers: the route's success status. */
  readonly successStatus: number;
  completed: boolean;
}

/** The request's Idempotency-Key, null when absent; 400 `invalid_header` when malformed. */
export function idempotencyKeyOf(headers: Headers): string | null {
  const value = headers.get('idempotency-key');
  if (value === null) return null;
  if (!KEY_PATTERN.test(value)) {
    throw new AppError('invalid_header', 'Idempotency-Key must be 1 to 255 printable ASCII characters');
  }
  return value;
}

/** SHA-256 of the method, the path and the body in canonical form (object members sorted); safe at any depth. */
export function requestHash(method: string, path: string, body: unknown): string {
  return crypto.createHash('sha256').update(canonicalJson([method.toUpperCase(), path, body ?? null])).digest('hex');
}

const outcomeIsKept = (status: number) => status < 500 && status !== 401 && status !== 403 && status !== 429;

/** The stored answer as a route result: same status and body, marked as a replay. */
function replay(record: { responseStatus: number | null; responseBody: unknown }): RouteResult {
  const status = record.responseStatus!;
  return {
    status,
    body: record.responseBody,
    headers: { 'Idempotent-Replayed': 'true', ...(status >= 400 ? { 'Content-Type': 'application/problem+json' } : {}) },
  };
}

/** Claims the key, or answers from the record of an earlier request with it. */
async function claimOrReplay(call: IdempotentCall, now: Date): Promise<{ claimId: number } | { replay: RouteResult }> {
  // A dead record found on conflict is deleted and the claim tried again; a few rounds settle any race.
  for (let attempt = 0; attempt < 3; attempt++) {
    const claimed = await idempotencyRepository.claim({
      apiKeyId: call.apiKeyId,
      key: call.key,
      requestHash: call.requestHash,
      expiresAt: new Date(now.getTime() + RETENTION_MS),
    });
    if (claimed) return { claimId: claimed.id };
    const existing = await idempotencyRepository.find(call.apiKeyId, call.key);
    if (!existing) continue; // released meanwhile
    const abandoned = existing.state === 'in_progress' && existing.createdAt.getTime() < now.getTime() - ABANDONED_AFTER_MS;
    if (existing.expiresAt <= now || abandoned) {
      await idempotencyRepository.discardIfDead(existing.id, now, new Date(now.getTime() - ABANDONED_AFTER_MS));
      continue;
    }
    if (existing.requestHash !== call.requestHash) {
      throw new AppError('idempotency_key_reused', 'This Idempotency-Key was already used with another request; use a new key for a new request');
    }
    if (existing.state === 'completed') return { replay: replay(existing) };
    break;
  }
  throw new AppError('idempotency_request_in_progress', 'A request with this Idempotency-Key is still running; retry when it has finished');
}

/** Runs `execute` at most once per key (within 24 hours) and answers repeats from the record. */
export async function runIdempotent(call: IdempotentCall, execute: (claim: IdempotencyClaim) => Promise<RouteResult>): Promise<RouteResult> {
  const now = new Date();
  const claim = await claimOrReplay(call, now);
  if ('replay' in claim) return claim.replay;

  // The caller gets the operation's own answer even when recording it fails: the key then stays
  // in progress until abandoned, rather than a done change being reported as an error.
  const record = (work: Promise<unknown>) =>
    work.catch((err) => logger.error({ err, requestId: call.requestId }, 'recording an idempotency outcome failed'));
  const held: IdempotencyClaim = { recordId: claim.claimId, key: call.key, successStatus: call.successStatus, completed: false };
  let result: RouteResult;
  try {
    result = await execute(held);
  } catch (err) {
    if (err instanceof AppError && outcomeIsKept(err.status)) {
      await record(idempotencyRepository.complete(claim.claimId, err.status, toProblem(err, call.requestId), new Date()));
    } else {
      await record(idempotencyRepository.release(claim.claimId));
    }
    throw err;
  }
  if (!held.completed) await record(idempotencyRepository.complete(claim.claimId, result.status, result.body, new Date()));
  return result;
}
