// A subscription's payload in the settings: full (the ticket in every event) or thin (the
// ticket's id, version, changed fields and link; the receiver fetches the ticket).
import type { WebhookSubscription } from '../api/operations.ts';

export type PayloadChoice = WebhookSubscription['payload'];

export const PAYLOAD_CHOICES: { id: PayloadChoice; name: string }[] = [
  { id: 'full', name: 'Full: the ticket in each event' },
  { id: 'thin', name: 'Thin: the ticket’s id, version and a link' },
];

export const payloadName = (payload: PayloadChoice) => (payload === 'thin' ? 'Thin (id, version, changed fields, link)' : 'Full');

export function PayloadNote({ payload }: { payload: PayloadChoice }) {
  return (
    <p className="muted">
      {payload === 'thin'
        ? 'Ticket events carry no ticket content: your endpoint fetches the ticket from the API with a key, and the ticket’s ETag tells whether it changed since. webhook.* events are the same either way.'
        : 'Each ticket event carries the ticket after the change.'}{' '}
      A change applies to events from now on; deliveries already waiting keep their form.
    </p>
  );
}
