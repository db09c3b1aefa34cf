// The Deliveries panel of a subscription: a dense table, one row per delivery (status, event,
// HTTP code, attempts, last try, next try) with its retries grouped under it, filtered by status,
// event type or event id, paged; a side panel with each attempt's response, the payload and
// Resend. Polled every few seconds so new attempts appear without a reload.
import { useState } from 'react';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Dialog, Form, Heading, Input, Label, Modal, ModalOverlay, TextField } from 'react-aria-components';
import { gql } from '../api/client.ts';
import {
  DELIVERY_STATUSES,
  LOG_EVENT_TYPES,
  RESEND_DELIVERY,
  WEBHOOK_DELIVERIES,
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
import { formText } from '../form.ts';

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

/** One delivery (one event to this subscription) and its attempts on the loaded pages, newest first. */
interface DeliveryGroup {
  deliveryId: string;
  latest: DeliveryAttempt;
  attempts: DeliveryAttempt[];
}

/** The log lists attempts newest first; a delivery's row is its newest attempt, its retries under it. */
function groupByDelivery(rows: DeliveryAttempt[]): DeliveryGroup[] {
  const groups = new Map<string, DeliveryGroup>();
  for (const row of rows) {
    const group = groups.get(row.deliveryId);
    if (group) group.attempts.push(row);
    else groups.set(row.deliveryId, { deliveryId: row.deliveryId, latest: row, attempts: [row] });
  }
  return [...groups.values()];
}

const EVENT_ID = /^evt_[0-9A-Za-z]+$/;

export function DeliveriesPanel({ subscription }: { subscription: WebhookSubscription }) {
  const [status, setStatus] = useState<string>(ALL);
  const [eventType, setEventType] = useState<string>(ALL);
  const [eventId, setEventId] = useState<string | null>(null);
  const [searchError, setSearchError] = useState<string | null>(null);
  const [open, setOpen] = useState<DeliveryGroup | null>(null);
  const log = useInfiniteQuery({
    queryKey: ['webhooks', 'deliveries', subscription.id, status, eventType, eventId],
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam }) =>
      (
        await gql(WEBHOOK_DELIVERIES, {
          subscriptionId: subscription.id,
          status: DELIVERY_STATUSES.find((s) => s === status) ?? null,
          eventType: eventType === ALL ? null : eventType,
          eventId,
          first: PAGE_SIZE,
          after: pageParam,
        })
      ).webhookDeliveries,
    getNextPageParam: (last) => (last.pageInfo.hasNextPage ? last.pageInfo.endCursor : null),
    refetchInterval: POLL_MS,
  });
  const groups = groupByDelivery(log.data?.pages.flatMap((p) => p.edges.map((e) => e.node)) ?? []);
  const filtered = status !== ALL || eventType !== ALL || eventId !== null;

  return (
    <section aria-labelledby="deliveries-heading" className="deliveries">
      <h2 id="deliveries-heading">Deliveries</h2>
      <DeliveryStatsView subscriptionId={subscription.id} />
      <p className="hint">One row per delivery, its retries under it; newest first, kept 30 days. The list updates by itself every few seconds.</p>
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
        <Form
          role="search"
          aria-label="Search deliveries by event id"
          className="search-form"
          validationBehavior="aria"
          onSubmit={(e) => {
            e.preventDefault();
            const value = formText(new FormData(e.currentTarget), 'eventId').trim();
            if (value && !EVENT_ID.test(value)) {
              setSearchError('An event id starts with evt_, for example evt_01M8GX6RH4RW0DNPXH7QJ48QZ0.');
              return;
            }
            setSearchError(null);
            setEventId(value || null);
          }}
        >
          <TextField name="eventId" className="field field-inline" isInvalid={!!searchError}>
            <Label>Event id</Label>
            <Input placeholder="evt_…" spellCheck={false} aria-describedby={searchError ? 'event-search-error' : undefined} />
          </TextField>
          <Button type="submit" className="button">
            Search
          </Button>
          {eventId !== null && (
            <Button
              className="button"
              onPress={() => {
                setEventId(null);
                setSearchError(null);
              }}
            >
              Show all events
            </Button>
          )}
        </Form>
      </div>
      {searchError && (
        <p id="event-search-error" className="field-error-text">
          {searchError}
        </p>
      )}
      <ErrorAlert error={log.error} prefix="The deliveries could not be loaded." />
      {log.isPending && <p role="status">Loading deliveries…</p>}
      {log.isSuccess && groups.length === 0 && (
        <p>{filtered ? 'No deliveries match these filters.' : 'No deliveries yet. Send a test event to try the endpoint.'}</p>
      )}
      {groups.length > 0 && (
        <div className="table-wrap">
          <table className="responsive-table delivery-table">
            <caption className="visually-hidden">Deliveries, newest first; the attempts of each delivery follow its row</caption>
            <thead>
              <tr>
                <th scope="col">Status</th>
                <th scope="col">Event</th>
                <th scope="col">HTTP</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last try</th>
                <th scope="col">Next try</th>
              </tr>
            </thead>
            {groups.map((group) => (
              <DeliveryRows key={group.deliveryId} group={group} onOpen={() => setOpen(group)} />
            ))}
          </table>
        </div>
      )}
      {log.hasNextPage && (
        <Button className="button" onPress={() => log.fetchNextPage()} isPending={log.isFetchingNextPage}>
          Show older deliveries
        </Button>
      )}
      <ModalOverlay className="drawer-overlay" isDismissable isOpen={open !== null} onOpenChange={(isOpen) => !isOpen && setOpen(null)}>
        <Modal className="drawer">
          <Dialog className="dialog">
            {({ close }) => open && <DeliveryPanel group={open} subscription={subscription} close={close} />}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </section>
  );
}

/** A delivery's row (its newest attempt) and, under it, the earlier attempts on the loaded pages. */
function DeliveryRows({ group, onOpen }: { group: DeliveryGroup; onOpen: () => void }) {
  const row = group.latest;
  const status = STATUS_LABELS[row.status];
  return (
    <tbody className="delivery" data-status={row.status}>
      <tr className="delivery-row" data-status={row.status}>
        <td data-label="Status">
          <span className={`badge badge-${status.tone}`}>{status.label}</span>
        </td>
        <th scope="row" data-label="Event">
          <Button className="link-button" onPress={onOpen} aria-label={`Details of ${row.eventType} event ${row.eventId}`}>
            <code>{row.eventType}</code>
          </Button>{' '}
          <code className="muted event-id">{row.eventId}</code>
        </th>
        <td data-label="HTTP">{row.httpStatus ?? (row.attemptedAt ? 'No answer' : '—')}</td>
        <td data-label="Attempts">
          {row.attempt} <span className="muted">{TRIGGER_LABELS[row.trigger] ?? row.trigger}</span>
        </td>
        <td data-label="Last try">{formatDateTime(row.attemptedAt, 'Not yet')}</td>
        <td data-label="Next try">{formatDateTime(row.nextAttemptAt, 'None')}</td>
      </tr>
      {group.attempts.slice(1).map((a) => (
        <tr key={a.id} className="retry-row" data-status={a.status}>
          <td data-label="Status">
            <span className="visually-hidden">Earlier attempt: </span>
            {STATUS_LABELS[a.status].label}
          </td>
          <td data-label="Event" className="muted">
            ↳ attempt {a.attempt} · {TRIGGER_LABELS[a.trigger] ?? a.trigger}
          </td>
          <td data-label="HTTP">{a.httpStatus ?? (a.attemptedAt ? 'No answer' : '—')}</td>
          <td data-label="Attempts">{a.attempt}</td>
          <td data-label="Last try">{formatDateTime(a.attemptedAt, 'Not yet')}</td>
          <td data-label="Next try">—</td>
        </tr>
      ))}
    </tbody>
  );
}

/** The side panel: every attempt of the delivery (read by its event id), the payload, Resend. */
function DeliveryPanel({ group, subscription, close }: { group: DeliveryGroup; subscription: WebhookSubscription; close: () => void }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const [error, setError] = useState<unknown>(null);
  const [pending, setPending] = useState(false);
  const attempts = useQuery({
    queryKey: ['webhooks', 'deliveries', subscription.id, 'event', group.latest.eventId],
    queryFn: async () =>
      (
        await gql(WEBHOOK_DELIVERIES, {
          subscriptionId: subscription.id,
          eventId: group.latest.eventId,
          first: 50,
        })
      ).webhookDeliveries.edges
        .map((e) => e.node)
        .filter((a) => a.deliveryId === group.deliveryId),
    refetchInterval: POLL_MS,
  });
  const rows = attempts.data ?? group.attempts;
  const latest = rows[0] ?? group.latest;
  const resendBlocked = subscription.condition !== 'receiving';

  return (
    <>
      <div className="drawer-header">
        <Heading slot="title">
          <code>{latest.eventType}</code> delivery
        </Heading>
        <Button className="button button-small" onPress={close}>
          Close
        </Button>
      </div>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <span className={`badge badge-${STATUS_LABELS[latest.status].tone}`}>{STATUS_LABELS[latest.status].label}</span>
        </dd>
        <dt>Event</dt>
        <dd>
          <code>{latest.eventId}</code>
        </dd>
        <dt>Next attempt</dt>
        <dd>{formatDateTime(latest.nextAttemptAt, 'None')}</dd>
      </dl>
      <div className="attempt-actions">
        <Button
          className="button"
          aria-label={`Resend ${latest.eventType} event ${latest.eventId}`}
          aria-describedby={resendBlocked ? 'resend-blocked' : undefined}
          isPending={pending}
          isDisabled={resendBlocked}
          onPress={async () => {
            setPending(true);
            setError(null);
            try {
              const { resendWebhookDelivery: attempt } = await gql(RESEND_DELIVERY, {
                subscriptionId: subscription.id,
                deliveryId: group.deliveryId,
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
        {resendBlocked && (
          <p className="hint" id="resend-blocked">
            Resend needs the webhook receiving: {subscription.condition === 'paused' ? 'resume it first' : 'enable it first'}.
          </p>
        )}
        <ErrorAlert error={error} />
      </div>
      <h3>Attempts</h3>
      <ol className="attempt-list" aria-label="Attempts of this delivery">
        {rows.map((a) => (
          <li key={a.id} className="attempt" data-status={a.status}>
            <p className="attempt-title">
              <span className={`badge badge-${STATUS_LABELS[a.status].tone}`}>{STATUS_LABELS[a.status].label}</span> attempt {a.attempt} ·{' '}
              {TRIGGER_LABELS[a.trigger] ?? a.trigger}
            </p>
            <dl className="facts facts-compact">
              <dt>HTTP status</dt>
              <dd>{a.httpStatus ?? (a.attemptedAt ? 'No answer' : '—')}</dd>
              <dt>Duration</dt>
              <dd>{a.durationMs === null ? '—' : `${a.durationMs} ms`}</dd>
              <dt>Attempted</dt>
              <dd>{formatDateTime(a.attemptedAt, 'Not yet')}</dd>
            </dl>
            {a.error && <AttemptError error={a.error} />}
            {a.responseExcerpt && (
              <details>
                <summary>Response</summary>
                <pre className="code-block">{a.responseExcerpt}</pre>
              </details>
            )}
          </li>
        ))}
      </ol>
      <h3>Payload</h3>
      <pre className="code-block" tabIndex={0} aria-label={`Payload of event ${latest.eventId}`}>
        {formatJson(latest.payload)}
      </pre>
    </>
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
