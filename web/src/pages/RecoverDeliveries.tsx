// The "Recover failed deliveries" action of a subscription: pick where the window starts (a recent
// period or a time of one's choice; it ends now), and the server re-sends every delivery that
// failed since then, as manual attempts that appear in the Deliveries panel.
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Heading, Input, Label, Text, TextField } from 'react-aria-components';
import { gql } from '../api/client.ts';
import { RECOVER_DELIVERIES, type WebhookRecovery, type WebhookSubscription } from '../api/operations.ts';
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
        const { recoverWebhookDeliveries } = await gql<{ recoverWebhookDeliveries: WebhookRecovery }>(RECOVER_DELIVERIES, {
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
    </ConfirmDialog>
  );
}
