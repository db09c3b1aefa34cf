// Every type of the event catalogue, produced for real through the API (create, change, state
// change, comment, test), validates against the OpenAPI document's `webhooks` schema: the
// envelope as written to the outbox, and the exact bytes and headers a delivery sends. GET
// /event-types answers the same catalogue with schemas that stand alone.
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { dereference } from '@readme/openapi-parser';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { createTicket, supportBoard } from '../tickets/helpers.ts';
import { prisma } from '../../src/db/db.ts';
import { buildOpenApiDocument } from '../../src/api/openapi.ts';
import { EVENT_TYPES } from '../../src/events/event.envelope.ts';
import { deliveryBody } from '../../src/webhooks/message/webhook-sender.ts';
import { deliveredPayload } from '../../src/webhooks/message/thin-payload.ts';
import { isTicketEvent } from '../../src/events/event.thin.ts';
import { signatureHeaders } from '../../src/webhooks/message/signing.ts';
import { deliveryRepository } from '../../src/webhooks/delivery/delivery.repository.ts';
import { conditionRepository } from '../../src/webhooks/subscriptions/condition.repository.ts';
import { writeDelivery } from '../webhooks/fixtures.ts';

const doc = (await dereference(structuredClone(buildOpenApiDocument()) as unknown as Parameters<typeof dereference>[0])) as any;
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
ajvFormats.default(ajv);

const hook = (type: string) => doc.webhooks[type].post;
const bodyValidator = (type: string) => ajv.compile(hook(type).requestBody.content['application/json'].schema);

function expectValid(validate: ReturnType<typeof ajv.compile>, value: unknown, label: string) {
  expect(validate(value), `${label}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 600)}`).toBe(true);
}

/** One real event of every type, through the API in a fresh workspace; their outbox rows by type. */
async function produceEveryEventType() {
  const ws = await createTestWorkspace('Event schemas');
  const { value: key } = await ws.key({ name: 'Event schemas' });
  const s = supportBoard(ws);
  const ticket = await createTicket(ws, key);
  const solved = s.board.states.find((st) => st.name !== ticket.state.name)!;
  const changed = await api('PATCH', `/tickets/${ticket.id}`, { key, body: { subject: 'Checkout still fails', fields: [{ fieldId: s.orderNumber, value: 'A-1' }], state: solved.id } });
  expect(changed.status, changed.text).toBe(200);
  const comment = await api('POST', `/tickets/${ticket.id}/comments`, { key, body: { body: 'Looking into it', public: false } });
  expect(comment.status, comment.text).toBe(201);
  const sub = await api('POST', '/webhooks', { key, body: { url: 'https://93.184.216.34/in', events: ['ticket.created'] } });
  expect(sub.status, sub.text).toBe(201);
  const test = await api('POST', `/webhooks/${sub.body.id}/test`, { key });
  expect(test.status, test.text).toBeLessThan(300);
  await produceOperationalEvents(ws, key, sub.body.id);
  const rows = await prisma.event.findMany({ where: { workspaceId: ws.workspace.id }, orderBy: { seq: 'asc' } });
  return { key, secret: sub.body.secret as string, rows };
}

/**
 * The operational events, from the transitions that write them: the last scheduled attempt of a
 * delivery fails as the 20th failure in a row (webhook.paused and webhook.delivery_failed), a
 * resume, a 410 (webhook.disabled) and a re-enable through the API.
 */
async function produceOperationalEvents(ws: Awaited<ReturnType<typeof createTestWorkspace>>, key: string, subscriptionId: string) {
  const ticketEvent = await prisma.event.findFirstOrThrow({ where: { workspaceId: ws.workspace.id, type: 'ticket.created' } });
  const delivery = await writeDelivery(ticketEvent.id, subscriptionId);
  await prisma.webhookSubscription.update({ where: { id: subscriptionId }, data: { consecutiveFailures: 19 } });
  const attempt = (n: number, outcome: 'failed' | 'gone', httpStatus: number) =>
    deliveryRepository.recordAttempt({
      deliveryId: delivery.id, subscriptionId, eventId: ticketEvent.id, eventType: ticketEvent.type, attempt: n, trigger: 'scheduled', outcome,
      lastScheduled: n === 7, httpStatus, durationMs: 12, responseExcerpt: '', error: null, payload: '{}', attemptedAt: new Date(), nextAttemptAt: null,
      workflowId: 'deliveries:x', waited: null, fence: null,
    });
  expect((await attempt(7, 'failed', 503))?.paused).not.toBeNull();
  expect(await conditionRepository.resume(subscriptionId, { id: ws.admin.id, name: ws.admin.fullName })).toBe(true);
  expect((await attempt(6, 'gone', 410))?.disabled).toMatchObject({ kind: 'webhook.disabled' });
  const enabled = await api('POST', `/webhooks/${subscriptionId}/enable`, { key });
  expect(enabled.status, enabled.text).toBe(200);
}

const produced = produceEveryEventType();

describe('the webhooks of the OpenAPI document', () => {
  it('has one entry per event type, with the Standard Webhooks headers and an example that fits its schema', () => {
    expect(Object.keys(doc.webhooks)).toEqual([...EVENT_TYPES]);
    for (const type of EVENT_TYPES) {
      const headers = hook(type).parameters.filter((p: { in: string }) => p.in === 'header').map((p: { name: string }) => p.name);
      expect(headers, type).toEqual(expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature']));
      const media = hook(type).requestBody.content['application/json'];
      // Ticket events have two forms (the subscription's payload, full or thin), each with its example.
      const examples = isTicketEvent(type) ? [media.examples.full.value, media.examples.thin.value] : [media.example];
      for (const example of examples) {
        expectValid(bodyValidator(type), example, `${type} example`);
        expect(example.type).toBe(type);
      }
      if (isTicketEvent(type)) expect(Object.keys(media.examples.thin.value.data).sort()).toEqual(expect.arrayContaining(['changedFields', 'id', 'object', 'url', 'version']));
    }
  });

  it('refers to the ticket representation of the paths, not a copy', () => {
    const raw = buildOpenApiDocument() as any;
    expect(raw.paths['/tickets/{id}'].get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Ticket' });
    for (const type of EVENT_TYPES.filter((t) => t.startsWith('ticket.'))) {
      const [full, thin] = raw.webhooks[type].post.requestBody.content['application/json'].schema.oneOf;
      expect(full.properties.data.$ref, type).toBe('#/components/schemas/Ticket');
      expect(thin.properties.data.properties.object.const, type).toBe('ticket');
    }
  });

  it('describes every real event: as written to the outbox, and the exact body and headers a delivery signs and sends', async () => {
    const { rows, secret } = await produced;
    expect(rows.map((r) => r.type).sort()).toEqual([...EVENT_TYPES].sort());
    for (const row of rows) {
      const validate = bodyValidator(row.type);
      expectValid(validate, row.payload, `${row.type} outbox row`);
      // What src/webhooks/delivery/activities.ts sends for this row.
      const body = deliveryBody(row.payload);
      expectValid(validate, JSON.parse(body), `${row.type} delivery body`);
      // To a subscription with payload thin (the same body where the type has no thin form).
      expectValid(validate, JSON.parse(deliveryBody(deliveredPayload(row.payload, 'thin'))), `${row.type} thin delivery body`);
      const headers = signatureHeaders({ id: row.id, body, timestamp: new Date(), secrets: [secret, secret] });
      for (const param of hook(row.type).parameters.filter((p: { name: string }) => p.name in headers)) {
        expectValid(ajv.compile(param.schema), headers[param.name as keyof typeof headers], `${row.type} header ${param.name}`);
      }
    }
    // A schema that accepted anything would prove nothing: another type's body is refused.
    const created = rows.find((r) => r.type === 'ticket.created')!;
    expect(bodyValidator('ticket.state_changed')(created.payload)).toBe(false);
    // A thin body that kept the ticket's content fits neither form.
    const thin = deliveredPayload(created.payload, 'thin') as { data: Record<string, unknown> };
    expect(bodyValidator('ticket.created')({ ...thin, data: { ...thin.data, subject: 'leaked' } })).toBe(false);
  });
});

describe('GET /event-types', () => {
  it('answers every type with its description and a stand-alone schema that real events satisfy', async () => {
    const { key, rows } = await produced;
    const res = await api('GET', '/event-types', { key });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((e: { type: string }) => e.type)).toEqual([...EVENT_TYPES]);
    const standalone = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    ajvFormats.default(standalone);
    for (const entry of res.body.data) {
      expect(entry.description, entry.type).toEqual(expect.any(String));
      expect(JSON.stringify(entry.schema), entry.type).not.toContain('$ref');
      const validate = standalone.compile(entry.schema);
      for (const row of rows.filter((r) => r.type === entry.type)) expectValid(validate, row.payload, `${entry.type} by /event-types`);
    }
  });

  it('needs a valid key and no particular scope', async () => {
    const ws = await createTestWorkspace('Event types scope');
    const { value: key } = await ws.key({ name: 'Knowledge base only', scopes: ['kb:read'] });
    expect((await api('GET', '/event-types', { key })).status).toBe(200);
    expect((await api('GET', '/event-types')).status).toBe(401);
  });
});
