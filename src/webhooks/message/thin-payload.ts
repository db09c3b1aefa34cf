// A subscription's `payload` (full or thin) and what a delivery of it sends. The relay records the
// subscription's payload on each Delivery row it writes (`payloadMode`), and every attempt builds
// its body from that and the stored envelope: a retry or re-send sends the same bytes under the same
// webhook-id even after the subscription switched (docs/integrators/webhooks.md, "Thin payloads").
import { config } from '../../config.ts';
import { thinEnvelope } from '../../events/event.thin.ts';

export const PAYLOAD_MODES = ['full', 'thin'] as const;

export const PAYLOAD_NOTE =
  '`full` (default): each event carries the ticket after the change. `thin`: ticket events carry only `{object: "ticket", id, version, changedFields, url}` ' +
  '(`changes` null, no `comment`, and `payload: "thin"`); the receiver fetches the ticket, whose ETag is `"<version>"` while it is current (`If-Match` with it makes a change conditional on that); `webhook.*` events are the same in both. ' +
  'A change applies to the events relayed after it: deliveries already written keep the form they were written with.';

/** The envelope a delivery sends: the stored one, or its thin form. */
export function deliveredPayload(payload: unknown, mode: string): unknown {
  return mode === 'thin' ? thinEnvelope(payload, config.http.publicBaseUrl) : payload;
}
