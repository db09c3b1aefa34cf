// One subscription: its settings and actions (edit, test, recover failed deliveries, rotate the
// secret, pause, resume, disable, enable, delete) and its Deliveries panel.
import { Fragment, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Heading, Link } from 'react-aria-components';
import { useLocation } from 'wouter';
import { gql } from '../api/client.ts';
import {
  DELETE_WEBHOOK,
  DISABLE_WEBHOOK,
  ENABLE_WEBHOOK,
  PAUSE_WEBHOOK,
  RESUME_WEBHOOK,
  ROTATE_WEBHOOK_SECRET,
  SEND_WEBHOOK_TEST,
  WEBHOOK_SUBSCRIPTION,
  type WebhookSubscriptionDetail as Subscription,
} from '../api/operations.ts';
import { useAnnounce } from '../components/Announcer.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { SecretReveal } from '../components/SecretReveal.tsx';
import { formatDateTime } from '../format.ts';
import { HealthBadge, HealthFacts, healthExplanation } from './SubscriptionHealth.tsx';
import { useBoards, useFieldChoices, WebhookFormDialog } from './WebhookForm.tsx';
import { DeliveriesPanel } from './Deliveries.tsx';
import { payloadName } from './PayloadChoice.tsx';
import { destinationFacts, destinationTypeName } from './DestinationFields.tsx';
import { RecoverDeliveriesDialog } from './RecoverDeliveries.tsx';

export function WebhookPage({ id }: { id: string }) {
  const subscription = useQuery({
    queryKey: ['webhooks', 'one', id],
    queryFn: async () => (await gql(WEBHOOK_SUBSCRIPTION, { id })).webhookSubscription,
    refetchInterval: 5_000,
  });
  const boards = useBoards();
  const fieldChoices = useFieldChoices(boards.data);
  const fieldName = (id: string) => fieldChoices.find((f) => f.id === id)?.name ?? id;
  const s = subscription.data;

  return (
    <>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <ol>
          <li>Settings</li>
          <li>Apps</li>
          <li>
            <Link href="/webhooks">Webhooks</Link>
          </li>
          <li aria-current="page">{s ? s.url : id}</li>
        </ol>
      </nav>
      <PageHeading>Webhook</PageHeading>
      {subscription.isPending && <p role="status">Loading the webhook…</p>}
      <ErrorAlert error={subscription.error} prefix="The webhook could not be loaded." />
      {s && (
        <>
          <section aria-labelledby="webhook-summary" className="card">
            <h2 id="webhook-summary" className="url-heading">
              {s.url}
            </h2>
            <p>
              <HealthBadge subscription={s} /> {healthExplanation(s)}
            </p>
            <HealthFacts subscription={s} />
            <dl className="facts">
              <dt>Destination</dt>
              <dd>{destinationTypeName(s.destination.type)}</dd>
              {s.destination.type !== 'https' &&
                destinationFacts(s.destination).map(([label, value]) => (
                  <Fragment key={label}>
                    <dt>{label}</dt>
                    <dd>{value}</dd>
                  </Fragment>
                ))}
              <dt>Events</dt>
              <dd>{s.events.join(', ')}</dd>
              {s.fields.length > 0 && (
                <>
                  <dt>Updates of</dt>
                  <dd>{s.fields.map(fieldName).join(', ')}</dd>
                </>
              )}
              <dt>Boards</dt>
              <dd>{s.boards.length ? s.boards.map((b) => boards.data?.find((x) => x.id === b)?.name ?? b).join(', ') : 'Every board'}</dd>
              {s.description && (
                <>
                  <dt>Description</dt>
                  <dd>{s.description}</dd>
                </>
              )}
              <dt>Payload</dt>
              <dd>{payloadName(s.payload)}</dd>
              <dt>Failed attempts in a row</dt>
              <dd>{s.consecutiveFailures} (20 pause it)</dd>
              <dt>Created</dt>
              <dd>{formatDateTime(s.createdAt)}</dd>
              <dt>Secret last rotated</dt>
              <dd>{formatDateTime(s.secretRotatedAt, 'Never')}</dd>
              <dt>Id</dt>
              <dd>
                <code>{s.id}</code>
              </dd>
            </dl>
            <Actions subscription={s} />
          </section>
          <DeliveriesPanel subscription={s} />
        </>
      )}
    </>
  );
}

function Actions({ subscription: s }: { subscription: Subscription }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const [, navigate] = useLocation();
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState<string | null>(null);

  async function run(name: string, action: () => Promise<string>) {
    setBusy(name);
    setError(null);
    try {
      announce(await action());
      await queryClient.invalidateQueries({ queryKey: ['webhooks'] });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  }

  return (
    <div className="actions-block">
      <div className="toolbar" role="group" aria-label="Webhook actions">
        <WebhookFormDialog subscription={s} />
        <Button
          className="button"
          isPending={busy === 'test'}
          isDisabled={s.condition === 'disabled'}
          onPress={() =>
            run('test', async () => {
              await gql(SEND_WEBHOOK_TEST, { id: s.id });
              return 'A test event is queued. It appears under Deliveries within a few seconds.';
            })
          }
        >
          Send test event
        </Button>
        {s.condition === 'paused' && (
          <Button
            className="button button-primary"
            isPending={busy === 'resume'}
            onPress={() =>
              run('resume', async () => {
                await gql(RESUME_WEBHOOK, { id: s.id });
                return 'The webhook is receiving again; the held events go out in order.';
              })
            }
          >
            Resume
          </Button>
        )}
        {s.condition === 'disabled' && (
          <Button
            className="button button-primary"
            isPending={busy === 'enable'}
            onPress={() =>
              run('enable', async () => {
                await gql(ENABLE_WEBHOOK, { id: s.id });
                return 'The webhook is enabled. Events from now on are delivered.';
              })
            }
          >
            Enable
          </Button>
        )}
        {s.condition === 'receiving' && <RecoverDeliveriesDialog subscription={s} />}
        <RotateSecretDialog subscription={s} />
        <ConditionDialogs subscription={s} />
        <ConfirmDialog
          label="Delete"
          title="Delete this webhook?"
          confirmLabel="Delete webhook"
          onConfirm={async () => {
            await gql(DELETE_WEBHOOK, { id: s.id });
            await queryClient.invalidateQueries({ queryKey: ['webhooks'] });
            announce('The webhook is deleted.');
            navigate('/webhooks');
          }}
        >
          <p>
            Nothing more is sent to <code>{s.url}</code>; deliveries still waiting are cancelled. This cannot be undone.
          </p>
        </ConfirmDialog>
      </div>
      {s.condition === 'disabled' && <p className="hint">Test events, re-sends and recovery need the webhook enabled.</p>}
      <ErrorAlert error={error} />
    </div>
  );
}

/** Pause (receiving) and Disable (receiving or paused), each behind a confirmation that starts on Cancel. */
function ConditionDialogs({ subscription: s }: { subscription: Subscription }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const change = async (request: Promise<unknown>, said: string) => {
    await request;
    await queryClient.invalidateQueries({ queryKey: ['webhooks'] });
    announce(said);
  };
  return (
    <>
      {s.condition === 'receiving' && (
        <ConfirmDialog
          label="Pause"
          title="Pause this webhook?"
          confirmLabel="Pause webhook"
          danger={false}
          onConfirm={() => change(gql(PAUSE_WEBHOOK, { id: s.id }), 'The webhook is paused. Events are kept until you resume it.')}
        >
          <p>
            Nothing is sent to <code>{s.url}</code> until you resume it. Events that occur meanwhile are kept (up to 100) and go out in order
            on resume. Subscriptions listening to <code>webhook.paused</code> are told.
          </p>
        </ConfirmDialog>
      )}
      {s.condition !== 'disabled' && (
        <ConfirmDialog
          label="Disable"
          title="Disable this webhook?"
          confirmLabel="Disable webhook"
          onConfirm={() => change(gql(DISABLE_WEBHOOK, { id: s.id }), 'The webhook is disabled. Nothing is sent until you enable it.')}
        >
          <p>
            Nothing is sent to <code>{s.url}</code> until you enable it, and deliveries still waiting are cancelled. Events that occur while
            it is disabled are never delivered. Subscriptions listening to <code>webhook.disabled</code> are told.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}

function RotateSecretDialog({ subscription: s }: { subscription: Subscription }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  return (
    <ConfirmDialog
      label="Rotate secret"
      title="Rotate the signing secret?"
      confirmLabel="Rotate secret"
      danger={false}
      onConfirm={async () => {
        const { rotateWebhookSecret } = await gql(ROTATE_WEBHOOK_SECRET, { id: s.id });
        announce('The signing secret is rotated. Copy the new secret now.');
        await queryClient.invalidateQueries({ queryKey: ['webhooks'] });
        return rotateWebhookSecret.secret;
      }}
      result={(secret, close) => (
        <>
          <Heading slot="title">New signing secret</Heading>
          <DualSignatureNote />
          <SecretReveal
            label="New signing secret"
            value={secret}
            warning={
              <>
                <strong>Copy the new secret now.</strong> It is shown only this once.
              </>
            }
            onDone={close}
          />
        </>
      )}
    >
      <DualSignatureNote />
    </ConfirmDialog>
  );
}

function DualSignatureNote() {
  return (
    <p>
      A new secret signs every delivery from now on. For the next <strong>24 hours</strong> each delivery also carries the signature
      made with the old secret (two signatures in the <code>webhook-signature</code> header, the new one first), so your receiver
      keeps accepting deliveries while you give it the new secret. After 24 hours only the new secret’s signature is sent.
    </p>
  );
}
