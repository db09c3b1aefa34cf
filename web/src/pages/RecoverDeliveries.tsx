// The "Recover failed deliveries" action of a subscription: pick where the window starts (a recent
// period or a time of one's choice; it ends now), and the server re-sends every delivery that
// failed since then, as manual attempts that appear in the Deliveries panel.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Heading, Input, Label, Text, TextField } from 'react-aria-components';
import { gql, type ResultOf } from '../api/client.ts';
import { RECOVER_DELIVERIES, WEBHOOK_FAILED_SINCE, type WebhookRecovery, type WebhookSubscription } from '../api/operations.ts';
import { useAnnounce } from '../components/Announcer.tsx';
import { ChoiceSelect } from '../components/ChoiceSelect.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { formatDateTime } from '../format.ts';

const HOUR = 3_600_000;
const CUSTOM = 'custom';
/** The server allows up to 30 days; the longest preset stays well inside, whatever the clocks' drift. */
const PERIODS = [
  { id: '1h', name: 'The last hour', ms: HOUR },
  { id: '6h', name: 'The last 6 hours', ms: 6 * HOUR },
  { id: '24h', name: 'The last 24 hours', ms: 24 * HOUR },
  { id: '7d', name: 'The last 7 days', ms: 7 * 24 * HOUR },
  { id: CUSTOM, name: 'From a time I choose', ms: 0 },
];

/** `YYYY-MM-DDTHH:mm` in local time, what a datetime-local input holds. */
function localInputValue(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export function RecoverDeliveriesDialog({ subscription }: { subscription: WebhookSubscription }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const [period, setPeriod] = useState('24h');
  const [custom, setCustom] = useState(() => localInputValue(new Date(Date.now() - HOUR)));

  function since(): string {
    if (period !== CUSTOM) return new Date(Date.now() - PERIODS.find((p) => p.id === period)!.ms).toISOString();
    const chosen = new Date(custom);
    // Sent as is when unreadable: the server names the field that is wrong.
    return Number.isNaN(chosen.getTime()) ? custom : chosen.toISOString();
  }

  return (
    <ConfirmDialog<WebhookRecovery>
      label="Recover failed deliveries"
      title="Recover failed deliveries?"
      confirmLabel="Recover"
      danger={false}
      onConfirm={async () => {
        const { recoverWebhookDeliveries } = await gql(RECOVER_DELIVERIES, {
          subscriptionId: subscription.id,
          since: since(),
        });
        announce('Recovery started: the failed deliveries are being sent again.');
        await queryClient.invalidateQueries({ queryKey: ['webhooks'] });
        return recoverWebhookDeliveries;
      }}
      result={(recovery, close) => (
        <>
          <Heading slot="title">Recovery started</Heading>
          <div className="dialog-body">
            <p>
              Every delivery that failed between {formatDateTime(recovery.since)} and {formatDateTime(recovery.until)} and has not got through
              since is being sent again, oldest first, with its original content. Each appears under Deliveries as a Manual resend.
            </p>
          </div>
          <div className="dialog-actions">
            <Button className="button button-primary" onPress={close} autoFocus>
              Done
            </Button>
          </div>
        </>
      )}
    >
      <p>
        Sends again every delivery to <code>{subscription.url}</code> that failed in the period you choose and has not got through since,
        with the same content and <code>webhook-id</code>. Deliveries that succeed this way are not retried any more.
      </p>
      <ChoiceSelect label="Failed in" value={period} onChange={setPeriod} choices={PERIODS} />
      {period === CUSTOM && (
        <TextField className="field" value={custom} onChange={setCustom} isRequired>
          <Label>From</Label>
          <Input type="datetime-local" max={localInputValue(new Date())} />
          <Text slot="description">Your local time; up to 30 days ago. The period ends now.</Text>
        </TextField>
      )}
      <RecoverEstimate subscriptionId={subscription.id} since={since()} />
    </ConfirmDialog>
  );
}

/** Pages of failed attempts read for the estimate at most: beyond them it says "more than". */
const ESTIMATE_PAGES = 3;

/**
 * How many deliveries the recovery would re-send, from the delivery log: those with a failed
 * attempt in the period, each counted once. The server leaves out the ones that got through
 * since, so this is the most it sends.
 */
function RecoverEstimate({ subscriptionId, since }: { subscriptionId: string; since: string }) {
  // To the minute: the query is not asked anew at every render while the dialog is open.
  const from = Number.isNaN(Date.parse(since)) ? null : new Date(Math.floor(Date.parse(since) / 60_000) * 60_000).toISOString();
  const estimate = useQuery({
    queryKey: ['webhooks', 'recover-estimate', subscriptionId, from],
    enabled: from !== null,
    queryFn: async () => {
      const deliveries = new Set<string>();
      let after: string | null = null;
      for (let page = 0; page < ESTIMATE_PAGES; page++) {
        // Enabled only with a time (`from`).
        const log: ResultOf<typeof WEBHOOK_FAILED_SINCE>['webhookDeliveries'] = (await gql(WEBHOOK_FAILED_SINCE, { subscriptionId, since: from!, after })).webhookDeliveries;
        for (const e of log.edges) deliveries.add(e.node.deliveryId);
        if (!log.pageInfo.hasNextPage) return { count: deliveries.size, more: false };
        after = log.pageInfo.endCursor;
      }
      return { count: deliveries.size, more: true };
    },
  });
  if (!estimate.data) return null;
  const { count, more } = estimate.data;
  return (
    <p role="status" className="hint">
      {count === 0
        ? 'No delivery failed in this period: there is nothing to re-send.'
        : count === 1 && !more
          ? '1 delivery failed in this period: it is re-sent unless it got through since.'
          : `${more ? 'More than ' : ''}${count} deliveries failed in this period: each is re-sent unless it got through since.`}
    </p>
  );
}
