// Recovery (docs/integrators/webhooks.md, "Recover"): re-send every delivery of a subscription that failed in a
// time window, as manual attempts, in one Temporal workflow (recover.workflows.ts); one at a time per subscription.
import crypto from 'node:crypto';
import { AppError, type FieldError } from '../../errors/errors.ts';
import type { Principal } from '../../access/principal.ts';
import { logger } from '../../logger.ts';
import { temporal } from '../../temporal/client.ts';
import type { Client } from '@temporalio/client';
import { describeRecovery, startRecovery, type Recovery } from './recover.client.ts';
import { recoverWorkflowId } from './recover.ids.ts';
import { recoverRepository } from './recover.repository.ts';
import { visibleBoards, webhookService } from '../subscriptions/webhook.service.ts';
import { recordSubscriptionAction } from '../subscriptions/webhook-audit.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** The longest window: attempts are kept 30 days, so a longer one could find nothing more. */
const MAX_RECOVER_WINDOW_DAYS = 30;

export const RECOVER_WINDOW_RULE =
  `\`since\` is inclusive, \`until\` exclusive and absent means now; \`since\` must be before \`until\`, \`until\` not later than now, ` +
  `and the window at most ${MAX_RECOVER_WINDOW_DAYS} days long (attempts are kept ${MAX_RECOVER_WINDOW_DAYS} days).`;

interface RecoverWindow {
  since: Date;
  until?: Date | null;
}

/** The window's rules; `until` resolved to now when absent. Checked before anything is read. */
function checkRecoverWindow({ since, until }: RecoverWindow, now: Date): { since: Date; until: Date } {
  const end = until ?? now;
  const errors: FieldError[] = [];
  if (end.getTime() > now.getTime()) errors.push({ path: '/until', message: 'must not be in the future' });
  if (since.getTime() >= end.getTime()) errors.push({ path: '/since', message: `must be before ${until ? 'until' : 'now'}` });
  else if (end.getTime() - since.getTime() > MAX_RECOVER_WINDOW_DAYS * DAY_MS) {
    errors.push({ path: '/since', message: `must be at most ${MAX_RECOVER_WINDOW_DAYS} days before until` });
  }
  if (errors.length) throw new AppError('validation_failed', 'The recovery window is not valid', { errors });
  return { since, until: end };
}

/**
 * What makes a repeated request start nothing new: the Idempotency-Key when the REST request
 * carries one (hashed with the key's id: keys are per API key and may hold any printable
 * character), else the request id (X-Request-Id when the caller sent one).
 */
export function recoveryRequestId(p: Principal, ctx: { requestId: string; idempotencyClaim?: { key: string } }): string {
  const key = ctx.idempotencyClaim?.key;
  if (!key || p.kind !== 'apiKey') return ctx.requestId;
  return `idem_${crypto.createHash('sha256').update(`${p.apiKey.id}:${key}`).digest('hex').slice(0, 32)}`;
}

export const recoverService = {
  async recover(p: Principal, subscriptionId: string, window: RecoverWindow, requestId: string) {
    const { since, until } = checkRecoverWindow(window, new Date());
    const s = await webhookService.get(p, subscriptionId);
    if (s.condition !== 'receiving') {
      throw new AppError('invalid_state_transition', `The subscription is ${s.condition}: ${s.condition === 'paused' ? 'resume' : 'enable'} it before recovering`);
    }
    const { client, taskQueue } = temporal();
    const input = { subscriptionId: s.id, workspaceId: s.workspaceId, since: since.toISOString(), until: until.toISOString(), boardIds: visibleBoards(p) };
    const workflowId = recoverWorkflowId(s.id, requestId);
    const unavailable = (err: unknown) => {
      logger.warn({ err, subscriptionId: s.id }, 'recovery could not start');
      return new AppError('service_unavailable', 'The recovery could not start now; try again shortly');
    };
    // A repeat of this request while another recovery runs gets the one it started (`earlier`).
    const earlier = await takeRecoveryPlace(client, s.id, workflowId).catch((err: unknown) => {
      throw err instanceof AppError ? err : unavailable(err);
    });
    const recovery =
      earlier ??
      (await startRecovery(client, taskQueue, input, requestId).catch(async (err: unknown) => {
        await recoverRepository.givePlaceUp(s.id, workflowId).catch(() => undefined);
        throw unavailable(err);
      }));
    // A repeat of a request whose recovery has ended leaves the place free.
    if (!earlier && recovery.status === 'finished') await recoverRepository.givePlaceUp(s.id, workflowId);
    await recordSubscriptionAction(p, 'webhook_subscription.recovery_started', s.id, { since: recovery.since, until: recovery.until });
    return { id: recovery.workflowId, subscriptionId: s.id, since: recovery.since, until: recovery.until, status: recovery.status };
  },
};

/**
 * Takes the subscription's place for a running recovery (one at a time) for `workflowId`. A holder
 * that is not running (it ended without giving the place up: terminated, or its request died before
 * starting it) is replaced. While another runs: 409 `recovery_in_progress`, unless this request
 * started a recovery before (a repeat), which is answered.
 */
async function takeRecoveryPlace(client: Client, subscriptionId: string, workflowId: string): Promise<Recovery | null> {
  let replacing: string | null = null;
  // Each turn either takes the place or finds a new holder; three cover a holder that ends meanwhile.
  for (let turn = 0; turn < 3; turn++) {
    const holder = await recoverRepository.takePlace(subscriptionId, workflowId, replacing);
    if (holder === workflowId) return null;
    const running = holder === null ? null : await describeRecovery(client, subscriptionId, holder);
    if (running?.status === 'running') {
      const own = await describeRecovery(client, subscriptionId, workflowId);
      if (own) return own;
      throw new AppError('recovery_in_progress', 'A recovery of this subscription is still running; ask again when it has finished');
    }
    replacing = holder;
  }
  throw new AppError('service_unavailable', 'The recovery could not start now; try again shortly');
}
