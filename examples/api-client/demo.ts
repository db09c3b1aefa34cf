// Creates a ticket with an Idempotency-Key, sends it again with the same key (as a retry would),
// and pages through the board's tickets.
//   TICKETING_API_URL=http://127.0.0.1:3000/public/v1 TICKETING_API_KEY=svc_… npx tsx examples/api-client/demo.ts
import crypto from 'node:crypto';
import { ApiError, createTicket, createTicketingClient, editTicket, eventsSince, listTickets, type NewTicket } from './client.ts';

const baseUrl = process.env.TICKETING_API_URL ?? 'http://127.0.0.1:3000/public/v1';
const apiKey = process.env.TICKETING_API_KEY;
if (!apiKey) {
  console.error('Set TICKETING_API_KEY to an API key (svc_…) with the scopes tickets:read and tickets:write');
  process.exit(1);
}
const client = createTicketingClient({ baseUrl, apiKey });

const boards = await client.GET('/boards');
if (!boards.data) throw new ApiError(boards.response.status, boards.error?.code, boards.error?.detail);
const board = boards.data.data[0];
if (!board) throw new Error('The workspace has no board this key can see');

// A real integration knows its board's fields; here every required one gets a placeholder of its type.
type Field = (typeof board.fields)[number];
function placeholder(field: Field): unknown {
  switch (field.type) {
    case 'select':
      return field.options[0];
    case 'multiselect':
      return field.options.slice(0, 1);
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'date':
      return new Date().toISOString().slice(0, 10);
    case 'text':
      return 'n/a';
  }
}

const ticket: NewTicket = {
  boardId: board.id,
  subject: 'Printer on fire',
  requesterEmail: 'customer@example.com',
  fields: board.fields.filter((f) => f.required).map((f) => ({ fieldId: f.id, value: placeholder(f) })),
};

// One key per ticket you mean to create, chosen before the first try.
const idempotencyKey = crypto.randomUUID();
const first = await createTicket(client, ticket, idempotencyKey);
console.log(`created ticket ${first.ticket.id} on board ${board.name} (replayed: ${first.replayed})`);
const retry = await createTicket(client, ticket, idempotencyKey);
console.log(`sent again with the same Idempotency-Key: ticket ${retry.ticket.id} (replayed: ${retry.replayed})`);

/**
 * Asks again (every 250 ms, 40 times at most) until `ready` holds: the feed serves an event once
 * every write that began before it has ended, which under load takes a moment (a write still running anywhere on the database holds it back).
 */
async function until<T>(ask: () => Promise<T>, ready: (value: T) => boolean): Promise<T> {
  for (let i = 1; ; i++) {
    const value = await ask();
    if (ready(value) || i === 40) return value;
    await new Promise((r) => setTimeout(r, 250));
  }
}

// The newest event of the ticket: where catching up starts.
const newest = await until(() => client.GET('/events', { params: { query: { ticketId: first.ticket.id, limit: 1 } } }), (r) => !r.data || r.data.data.length > 0);
const startAfter = newest.data?.data[0]?.id;

// A change made only if the ticket is still as read (If-Match); a stale version is refused.
const edited = await editTicket(client, first.ticket.id, (t) => ({ subject: `${t.subject} (escalated)` }));
console.log(`changed ticket ${edited.id} to version ${edited.version}`);
const stale = await client.PATCH('/tickets/{id}', { params: { path: { id: edited.id }, header: { 'If-Match': '"1"' } }, body: { subject: 'Based on version 1' } });
console.log(`a change based on version 1: ${stale.response.status} ${stale.error?.code}`);

if (startAfter) {
  const { events } = await until(() => eventsSince(client, { after: startAfter }), (r) => r.events.length > 0);
  console.log(`events since creating it: ${events.map((e) => `${e.type} v${e.data.version}`).join(', ')}`);
}

let count = 0;
for await (const t of listTickets(client, { boardId: board.id, limit: 20 })) {
  if (count++ < 3) console.log(`  #${t.id} ${t.state.name}: ${t.subject}`);
}
console.log(`board ${board.name}: ${count} ticket(s)`);
