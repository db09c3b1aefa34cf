// The Deliveries panel of a subscription: every attempt (and deliveries waiting for one), newest
// first, filtered by status and event type, paged, with Resend. Polled every few seconds so new
// attempts appear without a reload.
import { useState } from 'react';
import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { gql } from '../api/client.ts';
import {
  DELIVERY_STATUSES,
  LOG_EVENT_TYPES,
  RESEND_DELIVERY,
  WEBHOOK_DELIVERIES,
  type Connection,
  type DeliveryAttempt,
  type DeliveryStatus,
  type WebhookSubscription,
} from '../api/operations.ts';
import { useAnnounce } from '../components/Announcer.tsx';
import { ChoiceSelect } from '../components/ChoiceSelect.tsx';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { explainDeliveryError } from '../delivery-errors.ts';
import { formatDateTime } from '../format.ts';
import { DeliveryStatsView } from './DeliveryStats.tsx';

const PAGE_SIZE = 20;
const POLL_MS = 3_000;
const ALL = 'all';

const STATUS_LABELS: Record<DeliveryStatus, { label: string; tone: string }> = {
  succeeded: { label: 'Succeeded', tone: 'ok' },
  failed: { label: 'Failed', tone: 'error' },
  pending: { label: 'Pending', tone: 'info' },
  held: { label: 'Held (paused)', tone: 'warn' },
  cancelled: { label: 'Cancelled', tone: 'muted' },
};

const TRIGGER_LABELS: Record<string, string> = { scheduled: 'Scheduled', manual: 'Manual resend', test: 'Test' };

function formatJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

export function DeliveriesPanel({ subscription }: { subscription: WebhookSubscription }) {
  const [status, setStatus] = useState<string>(ALL);
  const [eventType, setEventType] = useState<string>(ALL);
  const log = useInfiniteQuery({
    queryKey: ['webhooks', 'deliveries', subscription.id, status, eventType],
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam }) =>
      (
        await gql<{ webhookDeliveries: Connection<DeliveryAttempt> }>(WEBHOOK_DELIVERIES, {
          subscriptionId: subscription.id,
          status: status === ALL ? null : status,
          eventType: eventType === ALL ? null : eventType,
          first: PAGE_SIZE,
          after: pageParam,
        })
      ).webhookDeliveries,
    getNextPageParam: (last) => (last.pageInfo.hasNextPage ? last.pageInfo.endCursor : null),
    refetchInterval: POLL_MS,
  });
  const rows = log.data?.pages.flatMap((p) => p.edges.map((e) => e.node)) ?? [];

  return (
    <section aria-labelledby="deliveries-heading" className="deliveries">
      <h2 id="deliveries-heading">Deliveries</h2>
      <DeliveryStatsView subscriptionId={subscription.id} />
      <p className="hint">Newest first, kept 30 days. The list updates by itself every few seconds.</p>
      <div className="toolbar filters" role="group" aria-label="Filter deliveries">
        <ChoiceSelect
          className="field field-inline"
          label="Status"
          value={status}
          onChange={setStatus}
          choices={[{ id: ALL, name: 'Any status' }, ...DELIVERY_STATUSES.map((s) => ({ id: s, name: STATUS_LABELS[s].label }))]}
        />
        <ChoiceSelect
          className="field field-inline"
          label="Event type"
          value={eventType}
          onChange={setEventType}
          choices={[{ id: ALL, name: 'Any event' }, ...LOG_EVENT_TYPES.map((t) => ({ id: t, name: t }))]}
        />
      </div>
      <ErrorAlert error={log.error} prefix="The deliveries could not be loaded." />
      {log.isPending && <p role="status">Loading deliveries…</p>}
      {log.isSuccess && rows.length === 0 && (
        <p>{status === ALL && eventType === ALL ? 'No deliveries yet. Send a test event to try the endpoint.' : 'No deliveries match these filters.'}</p>
      )}
      <ol className="attempt-list" aria-label="Delivery attempts">
        {rows.map((row) => (
          <AttemptItem key={row.id} row={row} subscription={subscription} />
        ))}
      </ol>
      {log.hasNextPage && (
        <Button className="button" onPress={() => log.fetchNextPage()} isPending={log.isFetchingNextPage}>
          Show older deliveries
        </Button>
      )}
    </section>
  );
}

function AttemptItem({ row, subscription }: { row: DeliveryAttempt; subscription: WebhookSubscription }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const [error, setError] = useState<unknown>(null);
  const [pending, setPending] = useState(false);
  const status = STATUS_LABELS[row.status];
  const titleId = `attempt-${row.id}`;

  return (
    <li className="attempt" data-status={row.status}>
      <article aria-labelledby={titleId}>
        <h3 id={titleId} className="attempt-title">
          <span className={`badge badge-${status.tone}`}>{status.label}</span> <code>{row.eventType}</code>{' '}
          <span className="muted">
            attempt {row.attempt} · {TRIGGER_LABELS[row.trigger] ?? row.trigger}
          </span>
        </h3>
        <dl className="facts facts-compact">
          <dt>HTTP status</dt>
          <dd>{row.httpStatus ?? (row.attemptedAt ? 'No answer' : '—')}</dd>
          <dt>Duration</dt>
          <dd>{row.durationMs === null ? '—' : `${row.durationMs} ms`}</dd>
          <dt>Attempted</dt>
          <dd>{formatDateTime(row.attemptedAt, 'Not yet')}</dd>
          <dt>Next attempt</dt>
          <dd>{formatDateTime(row.nextAttemptAt, 'None')}</dd>
          <dt>Event</dt>
          <dd>
            <code>{row.eventId}</code>
          </dd>
        </dl>
        {row.error && <AttemptError error={row.error} />}
        {row.responseExcerpt && (
          <details>
            <summary>Response excerpt</summary>
            <pre className="code-block">{row.responseExcerpt}</pre>
          </details>
        )}
        <details>
          <summary>Payload</summary>
          <pre className="code-block" tabIndex={0} aria-label={`Payload of event ${row.eventId}`}>
            {formatJson(row.payload)}
          </pre>
        </details>
        <div className="attempt-actions">
          <Button
            className="button button-small"
            aria-label={`Resend ${row.eventType} event ${row.eventId}`}
            isPending={pending}
            isDisabled={subscription.condition !== 'receiving'}
            onPress={async () => {
              setPending(true);
              setError(null);
              try {
                const { resendWebhookDelivery: attempt } = await gql<{ resendWebhookDelivery: DeliveryAttempt }>(RESEND_DELIVERY, {
                  subscriptionId: subscription.id,
                  deliveryId: row.deliveryId,
                });
                announce(
                  attempt.status === 'succeeded'
                    ? `Resent: the endpoint answered HTTP ${attempt.httpStatus}.`
                    : `Resent, but it failed${attempt.httpStatus ? ` with HTTP ${attempt.httpStatus}` : ''}.`,
                );
                await queryClient.invalidateQueries({ queryKey: ['webhooks'] });
              } catch (err) {
                setError(err);
              } finally {
                setPending(false);
              }
            }}
          >
            Resend
          </Button>
        </div>
        <ErrorAlert error={error} />
      </article>
    </li>
  );
}

/** The sender's error said plainly, the original beside it for whoever runs the endpoint. */
function AttemptError({ error }: { error: string }) {
  const plain = explainDeliveryError(error);
  return (
    <p className="attempt-error">
      {plain ?? error}
      {plain && (
        <>
          {' '}
          <code className="muted">({error})</code>
        </>
      )}
    </p>
  );
}
