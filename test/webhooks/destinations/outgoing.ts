// Deliveries as the engine hands them to a broker sender (destinations/sender.ts): signed bodies
// with the Standard Webhooks headers, so a test reads a message back from the broker and verifies
// it as an integrator's consumer would.
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, signatureHeaders } from '../../../src/webhooks/message/signing.ts';
import type { OutgoingMessage, SendContext } from '../../../src/webhooks/message/destinations/sender.ts';
import { uniqueId } from '../../support/temporal.ts';

export const secret = generateWebhookSecret();

/** One message per entry, in order; bodies hold non-ASCII text, so byte-exactness shows. */
export function outgoing(entries: { orderKey: string; eventType?: string }[]): OutgoingMessage[] {
  return entries.map(({ orderKey, eventType = 'ticket.updated' }, i) => {
    const id = uniqueId('msg');
    const body = JSON.stringify({ type: eventType, timestamp: new Date().toISOString(), data: { id: orderKey, subject: `Ärger mit Drucker №${i} ✓` } });
    return { deliveryId: uniqueId('dlv'), eventId: uniqueId('evt'), eventType, orderKey, body, headers: signatureHeaders({ id, body, timestamp: new Date(), secrets: [secret] }) };
  });
}

/** Whether a consumer that holds the secret accepts what the broker gave it (throws otherwise). */
export function verifies(body: string, headers: Record<string, string>): boolean {
  new Webhook(secret).verify(body, headers);
  return true;
}

/** A subscription's send context on loopback (the URL rule lifted, as in development). */
export const loopback = (): SendContext => ({ subscriptionId: uniqueId('sub'), workspaceId: 1, allowPrivateTargets: true });
