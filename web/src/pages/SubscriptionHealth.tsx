// A subscription's health at a glance, on the list and the detail page: its condition, or
// "Failing" while failures keep coming, with the last 24 hours' success rate, the last delivery,
// the last error and what waits to be sent (the delivery run's backlog, bound and rate).
import type { HealthAttempt, WebhookBacklogWait, WebhookSubscription } from '../api/operations.ts';
import { explainDeliveryError } from '../delivery-errors.ts';
import { formatDateTime } from '../format.ts';
import { retryScheduleText } from './retry-schedule-field.ts';

/**
 * Failed attempts in a row from which a receiving subscription shows as Failing. One or two
 * failures are an endpoint's ordinary hiccup (a deploy, a timeout) that the retries absorb; three
 * in a row, with no success between, means failures keep coming, long before the 20 that pause it.
 */
const FAILING_AFTER = 3;

export type Health = 'receiving' | 'failing' | 'paused' | 'disabled';

function healthOf(s: Pick<WebhookSubscription, 'condition' | 'consecutiveFailures'>): Health {
  return s.condition === 'receiving' && s.consecutiveFailures >= FAILING_AFTER ? 'failing' : s.condition;
}

const HEALTH: Record<Health, { label: string; tone: string; explain: (s: WebhookSubscription) => string }> = {
  receiving: { label: 'Receiving', tone: 'ok', explain: () => 'Deliveries are sent.' },
  failing: {
    label: 'Failing',
    tone: 'error',
    explain: (s) => `The last ${s.consecutiveFailures} attempts failed in a row; at 20 the webhook is paused. Check the endpoint and the last error.`,
  },
  paused: {
    label: 'Paused',
    tone: 'warn',
    explain: (s) =>
      s.conditionReason === 'manual'
        ? 'Paused by a person; events are kept until it is resumed.'
        : 'Paused after 20 failed deliveries in a row; events are kept until it is resumed.',
  },
  disabled: {
    label: 'Disabled',
    tone: 'error',
    explain: (s) =>
      s.conditionReason === 'manual'
        ? 'Disabled by a person; nothing is sent until it is enabled.'
        : 'Disabled because the endpoint answered 410 Gone; nothing is sent until it is enabled.',
  },
};

export function HealthBadge({ subscription }: { subscription: WebhookSubscription }) {
  const h = HEALTH[healthOf(subscription)];
  return <span className={`badge badge-${h.tone}`}>{h.label}</span>;
}
export const healthExplanation = (s: WebhookSubscription) => HEALTH[healthOf(s)].explain(s);

const WAITING_FOR: Record<WebhookBacklogWait, string> = {
  nothing: 'Being sent',
  in_flight_bound: 'Waiting for a free in-flight slot',
  next_attempt: 'Retries waiting for their next attempt',
  paused: 'Held while paused',
  rate: 'Spaced out by the rate limit',
  retry_after: 'Waiting for the time the endpoint’s Retry-After asked for',
  workspace_cap: 'Waiting for the workspace’s limit of attempts in flight',
};

const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });

/** How long ago, in the largest whole unit (seconds, minutes, hours, days). */
function age(since: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - new Date(since).getTime()) / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

function lastError(row: HealthAttempt): string {
  if (row.httpStatus) return `HTTP ${row.httpStatus}${row.error ? ` (${row.error})` : ''}`;
  if (!row.error) return 'No answer';
  const plain = explainDeliveryError(row.error);
  return plain ? `${plain.replace(/\.$/, '')} (${row.error})` : row.error;
}

/** The health facts as a description list (the detail page) or a compact one (a list row). */
export function HealthFacts({ subscription: s, compact = false }: { subscription: WebhookSubscription; compact?: boolean }) {
  // The numbers come with the subscription (its `health`), which the list and the page poll anyway.
  const { health: h, backlog: b } = s;
  const rate = h.successRate24h === null ? 'No attempts' : `${percent.format(h.successRate24h)} of ${h.attempts24h}`;
  const lastDelivery = h.lastAttempt === null ? 'None yet' : `${formatDateTime(h.lastAttempt.attemptedAt)} · ${h.lastAttempt.status}`;
  const error = h.lastFailure === null ? 'None' : `${lastError(h.lastFailure)}, ${formatDateTime(h.lastFailure.attemptedAt)}`;
  const backlog = b.pending === 0 ? 'Nothing waits' : `${b.pending} waiting${b.oldestWaitingSince ? `, oldest for ${age(b.oldestWaitingSince)}` : ''}`;
  return (
    <dl className={compact ? 'facts health-cell' : 'facts'}>
      <dt>Success, last 24 hours</dt>
      <dd>{rate}</dd>
      <dt>Last delivery</dt>
      <dd>{lastDelivery}</dd>
      <dt>Last error</dt>
      <dd>{error}</dd>
      <dt>Backlog</dt>
      <dd>
        {backlog}
        {b.pending > 0 && ` (${WAITING_FOR[b.waitingFor].toLowerCase()})`}
      </dd>
      <dt>In flight</dt>
      <dd>
        {b.inFlight} of {s.effectiveInFlight}
        {s.effectiveInFlight < s.maxInFlight && ` (lowered from ${s.maxInFlight} after 429/503 answers)`}
      </dd>
      {!compact && (
        <>
          <dt>Rate</dt>
          <dd>{s.ratePerSecond === null ? 'No limit' : `${s.ratePerSecond} per second at most`}</dd>
          <dt>Retries</dt>
          <dd>{retryScheduleText(s.retrySchedule)}</dd>
          <dt>Order</dt>
          <dd>{s.ordering === 'strict' ? 'Strict: one at a time, in event order' : 'Concurrent: oldest event first'}</dd>
        </>
      )}
    </dl>
  );
}
