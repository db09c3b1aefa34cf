// Webhook subscriptions (docs/integrators/webhooks.md, "Subscriptions" and "Retries, pause and disable"): the rules of
// saving one, its conditions (receiving, paused, disabled), the secret and the Test action. The
// delivery log and re-sending are the log's (../log/delivery-log.service.ts).
import { z } from 'zod';
import { AppError, fromZodIssues, type FieldError } from '../../errors/errors.ts';
import type { Principal } from '../../access/principal.ts';
import { EVENT_TYPES } from '../../events/event.envelope.ts';
import { config } from '../../config.ts';
import { logger } from '../../logger.ts';
import { temporal } from '../../temporal/client.ts';
import { wakeRun } from '../delivery/wake.ts';
import { text } from '../../validation/text.ts';
import { URL_RULE_NOTE, WEBHOOK_URL_PATTERN, normaliseWebhookUrl, validateWebhookUrl } from '../message/url-policy.ts';
import { generateWebhookSecret } from '../message/signing.ts';
import { webhookRepository, type Subscription } from './webhook.repository.ts';
import { pageByKey, pageInMemory, type ConnectionArgs } from '../../paging/page-by-key.ts';
import { stringId } from '../../paging/page-keys.ts';
import { conditionRepository } from './condition.repository.ts';
import { retryScheduleInput } from '../message/retry-schedule.ts';
import { PAYLOAD_MODES, PAYLOAD_NOTE } from '../message/thin-payload.ts';
import { conditionAudit, subscriptionAudit } from './webhook-audit.ts';
import { fieldFilterName } from '../fanout/event-match.ts';
import { withSecretKeys } from './secret-writes.ts';
import { brokerDestinationInput, destinationAddress, splitDestination, type BrokerDestinationInput } from '../message/destinations/settings.ts';
import { validateDestination } from '../message/destinations/addresses.ts';

export const DESTINATION_NOTE =
  'Where deliveries go when not to an HTTPS `url`: a queue or bus (Amazon SQS, Amazon EventBridge, Apache Kafka, RabbitMQ, NATS JetStream), with the same body and Standard Webhooks headers (signature included) as message attributes or headers. ' +
  'Send either `url` (https) or `destination`. Credentials are write-only: stored sealed, never returned; send them again with any change of `destination`. ' +
  'Broker addresses follow the URL rule (public addresses only, encrypted connections) outside development.';

/** What a subscription can listen to; `webhook.test` is sent by the Test action alone. */
export const SUBSCRIBABLE_EVENTS = EVENT_TYPES.filter((t) => t !== 'webhook.test');
const MAX_BOARDS = 100;
/** The ticket.updated field filter: at most this many names. */
export const MAX_FIELDS = 50;
/** The fields of a ticket that `ticket.updated` reports by name; custom fields go by their id. */
const TICKET_UPDATED_FIELDS = ['subject', 'description', 'priority'] as const;
export const FIELDS_NOTE =
  `Only for \`ticket.updated\`: receive only the updates whose \`changes\` name one of these fields (${TICKET_UPDATED_FIELDS.map((f) => `\`${f}\``).join(', ')}, ` +
  `or the id of a custom field of the workspace's boards, which \`changes\` names \`fields.<id>\`: either form, saved as the id); empty or absent: every update. At most ${MAX_FIELDS}. Other event types are not affected, and ` +
  'test events ignore it. A state change is the event `ticket.state_changed`, not a field here. Needs `ticket.updated` among `events`.';
/** The most any deployment allows (WEBHOOK_MAX_IN_FLIGHT_LIMIT's own maximum); the operator's limit applies below it. */
const MAX_IN_FLIGHT_CEILING = 1000;

export const ORDERING_NOTE =
  '`concurrent` (default): up to the bound in force at once, oldest event first. `strict`: one at a time in event order; the next event waits until the previous one succeeded or used its last attempt (so a failing endpoint holds back the rest for up to the schedule’s ~35 hours).';

const subscriptionFields = {
  url: text({ max: 2048, min: 1, trim: true })
    .regex(WEBHOOK_URL_PATTERN, 'breaks the URL rule: must be https://<host>/… without control characters or spaces')
    // Stored as the rule saw it: normalised (WHATWG serialisation, no trailing dots in the host).
    .transform((raw, ctx) => {
      const normal = normaliseWebhookUrl(raw);
      if (normal.ok) return normal.url;
      ctx.issues.push({ code: 'custom', input: raw, message: normal.message });
      return z.NEVER;
    })
    .meta({ format: 'uri', description: `${URL_RULE_NOTE} Leading and trailing white space is removed first; stored normalised (WHATWG URL serialisation).` }),
  events: z
    .array(z.enum(SUBSCRIBABLE_EVENTS))
    .min(1)
    .max(SUBSCRIBABLE_EVENTS.length * 4)
    .describe('Event types to receive'),
  boards: z.array(text({ max: 100, min: 1 })).max(MAX_BOARDS).describe('Board ids; empty or absent means every board').optional(),
  fields: z.array(text({ max: 100, min: 1 })).max(MAX_FIELDS).describe(FIELDS_NOTE).optional(),
  description: text({ max: 500 }).optional(),
  maxInFlight: z
    .int()
    .min(1)
    .max(MAX_IN_FLIGHT_CEILING)
    .optional()
    .describe(
      'Attempts open at once to this endpoint at most (default 10): further deliveries wait, oldest event first, and go out as attempts finish; waiting is not a failure and uses none of its seven attempts. ' +
        'Ten keep a receiver that answers in 100 ms at about 100 deliveries per second, while one that hangs ties up ten connections, not the service. ' +
        'At most the operator’s maximum (WEBHOOK_MAX_IN_FLIGHT_LIMIT, 50 by default): 422 above it. A receiver answering 429 or 503, or not answering at all (time-out, refused connection), lowers the bound in force (halved, to 1 at least) until 2xx answers raise it back, one per bound’s worth of successes.',
    ),
  ratePerSecond: z
    .number()
    .min(0.01)
    .max(1000)
    .nullable()
    .optional()
    .describe(
      'Attempts started per second at most, evenly spaced (GCRA); null or absent: no rate bound, only maxInFlight. For receivers that meter requests rather than connections. ' +
        'At least the operator’s minimum (WEBHOOK_MIN_RATE_PER_SECOND, 0.1 by default): 422 below it.',
    ),
  ordering: z
    .enum(['concurrent', 'strict'])
    .optional()
    .describe(ORDERING_NOTE),
  retrySchedule: retryScheduleInput,
  payload: z.enum(PAYLOAD_MODES).optional().describe(PAYLOAD_NOTE),
  destination: brokerDestinationInput.optional().describe(DESTINATION_NOTE),
};

export const createWebhookInput = z
  .strictObject({ ...subscriptionFields, url: subscriptionFields.url.optional() })
  .superRefine((v, ctx) => {
    if ((v.url === undefined) === (v.destination === undefined)) ctx.addIssue({ code: 'custom', path: v.url === undefined ? ['url'] : ['destination'], message: 'send either url (an HTTPS endpoint) or destination (a broker), not both' });
  });
export const updateWebhookInput = z
  .strictObject(subscriptionFields)
  .partial()
  .refine((v) => Object.keys(v).length > 0, { message: 'Send at least one member to change' })
  .refine((v) => v.url === undefined || v.destination === undefined, { message: 'send either url (an HTTPS endpoint) or destination (a broker), not both', path: ['destination'] })
  .meta({ minProperties: 1 });

type CreateInput = z.infer<typeof createWebhookInput>;
type UpdateInput = z.infer<typeof updateWebhookInput>;

function parse<T>(schema: z.ZodType<T>, input: unknown): T {
  const r = schema.safeParse(input);
  if (!r.success) throw new AppError('validation_failed', 'The subscription did not pass validation', { errors: fromZodIssues(r.error.issues) });
  return r.data;
}

const notFound = (id: string) => new AppError('not_found', `No webhook subscription ${id}`);

/** The scope lets a key ask; the role, as for a person with it, decides whether it may manage webhooks. */
function requireManageRole(p: Principal) {
  if (!p.role.isAdmin && !p.role.permissions.has('webhooks.manage')) {
    throw new AppError('forbidden', `The role ${p.role.name} does not allow managing webhooks`);
  }
}

const seesEveryBoard = (p: Principal) => p.role.isAdmin || p.role.allBoards;

/** The boards whose tickets' deliveries the caller may see; null for every board. */
export const visibleBoards = (p: Principal): string[] | null => (seesEveryBoard(p) ? null : [...p.role.boardIds]);

/**
 * A subscription sends the tickets of its boards; a role that does not see every board sees (and
 * may save) only subscriptions limited to boards it sees, so the delivery log never shows it a
 * ticket it could not read.
 */
function visibleTo(p: Principal, s: Pick<Subscription, 'boardIds'>) {
  return seesEveryBoard(p) || (s.boardIds.length > 0 && s.boardIds.every((b) => p.role.boardIds.has(b)));
}

async function find(p: Principal, id: string): Promise<Subscription> {
  requireManageRole(p);
  const s = await webhookRepository.find(p.workspace.id, id);
  if (!s || !visibleTo(p, s)) throw notFound(id);
  return s;
}

/** The field filter names fields that ticket.updated reports: the ticket's own, or custom field ids of the workspace. */
async function checkFields(p: Principal, fields: string[], events: string[], errors: FieldError[]) {
  if (!fields.length) return;
  if (!events.includes('ticket.updated')) errors.push({ path: '/fields', message: 'filters ticket.updated: add it to events, or send no fields' });
  const known = new Set<string>(TICKET_UPDATED_FIELDS);
  const custom = await webhookRepository.existingFieldIds(p.workspace.id, fields.filter((f) => !known.has(f)));
  fields.forEach((f, i) => {
    if (known.has(f) || custom.has(f)) return;
    const message = f === 'state' ? 'is not a field of ticket.updated: state changes are the event ticket.state_changed' : `is not a ticket field or a custom field id of this workspace (${f})`;
    errors.push({ path: `/fields/${i}`, message });
  });
}

/** The destination columns of a saved url or destination (undefined: neither changes). */
function destinationOf(url: string | undefined, destination: BrokerDestinationInput | undefined) {
  if (destination) {
    const { type, settings, credentials } = splitDestination(destination);
    return { url: destinationAddress(destination), destination: { type, settings, credentials } };
  }
  if (url !== undefined) return { url, destination: { type: 'https' as const, settings: null, credentials: null } };
  return undefined;
}

async function checkTarget(
  p: Principal,
  url: string | undefined,
  boards: string[] | undefined,
  bounds: { maxInFlight?: number; ratePerSecond?: number | null },
  filter?: { fields: string[]; events: string[] },
  destination?: BrokerDestinationInput,
): Promise<void> {
  const errors: FieldError[] = [];
  if (filter) await checkFields(p, filter.fields, filter.events, errors);
  const limit = config.webhooks.maxInFlightLimit;
  if (bounds.maxInFlight !== undefined && bounds.maxInFlight > limit) errors.push({ path: '/maxInFlight', message: `must be at most ${limit} (this service's maximum)` });
  // The operator's floor: a slower rate would leave a busy subscription's deliveries waiting for days.
  const floor = config.webhooks.minRatePerSecond;
  if (bounds.ratePerSecond != null && bounds.ratePerSecond < floor) errors.push({ path: '/ratePerSecond', message: `must be at least ${floor} (this service's minimum)` });
  if (url !== undefined) errors.push(...(await validateWebhookUrl(url, { workspaceId: p.workspace.id })));
  if (destination) errors.push(...(await validateDestination(destination, { workspaceId: p.workspace.id })));
  if (boards !== undefined) {
    if (!boards.length && !seesEveryBoard(p)) {
      errors.push({ path: '/boards', message: `must name boards: the role ${p.role.name} does not see every board` });
    }
    const existing = boards.length ? await webhookRepository.existingBoardIds(p.workspace.id, boards) : new Set<string>();
    boards.forEach((b, i) => {
      if (!existing.has(b) || !(seesEveryBoard(p) || p.role.boardIds.has(b))) errors.push({ path: `/boards/${i}`, message: `is not a board (${b})` });
    });
  }
  if (errors.length) throw new AppError('validation_failed', 'The subscription did not pass validation', { errors });
}

const unique = <T>(list: T[]) => [...new Set(list)];
const filterFields = (fields: string[] | undefined) => fields && unique(fields.map(fieldFilterName));
const actorOf = (p: Principal) => ({ id: p.user.id, name: p.user.fullName });

const SUBSCRIPTION_ID = /^wh_[0-9A-Z]{26}$/;
const subscriptionIds = stringId(SUBSCRIPTION_ID);

/** The condition changes by hand refuse what cannot be an id before any read (and never echo it). */
function requireSubscriptionId(id: string) {
  if (!SUBSCRIPTION_ID.test(id)) throw new AppError('validation_failed', 'The id is not a webhook subscription id', { errors: [{ path: '/id', message: 'must be wh_ and 26 characters' }] });
}

export const webhookService = {
  /** Newest first (ids are time-sortable); the role's view is decided in code, so the short list is paged in memory. */
  list(p: Principal, args: ConnectionArgs) {
    requireManageRole(p);
    return pageByKey(args, {
      key: subscriptionIds,
      keyOf: (s: Subscription) => s.id,
      newestFirst: true,
      load: async (page) => {
        const visible = (await webhookRepository.listForWorkspace(p.workspace.id)).filter((s) => visibleTo(p, s));
        return pageInMemory(visible, page, subscriptionIds, (s) => s.id);
      },
    });
  },

  get: find,

  /** A new subscription and its signing secret (shown in this answer only). */
  async create(p: Principal, input: unknown) {
    requireManageRole(p);
    const data: CreateInput = parse(createWebhookInput, input);
    const boards = unique(data.boards ?? []);
    const fields = filterFields(data.fields) ?? [];
    await checkTarget(p, data.url, boards, data, { fields, events: data.events }, data.destination);
    const target = destinationOf(data.url, data.destination)!;
    const secret = generateWebhookSecret();
    const subscription = await withSecretKeys('create a subscription', null, () => webhookRepository.create({
      workspaceId: p.workspace.id,
      createdById: p.user.id,
      apiKeyId: p.kind === 'apiKey' ? p.apiKey.id : null,
      limit: p.kind === 'apiKey' ? p.limits.maxWebhookSubscriptions : null,
      workspaceLimit: config.limits.maxWebhookSubscriptionsPerWorkspace,
      ...target,
      events: unique(data.events),
      boardIds: boards,
      fields,
      description: data.description ?? '',
      ...(data.maxInFlight !== undefined ? { maxInFlight: data.maxInFlight } : {}),
      ...(data.ratePerSecond != null ? { ratePerSecond: data.ratePerSecond } : {}),
      ...(data.ordering !== undefined ? { ordering: data.ordering } : {}),
      ...(data.retrySchedule ? { retrySchedule: data.retrySchedule } : {}),
      ...(data.payload !== undefined ? { payload: data.payload } : {}),
      secret,
    }, (tx, created) => subscriptionAudit(p, 'webhook_subscription.created', created.id, null, created)(tx, undefined)));
    if ('limitReached' in subscription) {
      if (subscription.limitReached === 'workspace') {
        const max = config.limits.maxWebhookSubscriptionsPerWorkspace;
        throw new AppError('subscription_limit_reached', `This workspace already has ${max} webhook subscriptions, its limit; delete one first`);
      }
      const max = p.kind === 'apiKey' ? p.limits.maxWebhookSubscriptions : 0;
      throw new AppError('subscription_limit_reached', `This API key already has ${max} webhook subscriptions, its limit; delete one first`);
    }
    return { subscription, secret };
  },

  async update(p: Principal, id: string, input: unknown) {
    const data: UpdateInput = parse(updateWebhookInput, input);
    const current = await find(p, id);
    const boards = data.boards === undefined ? undefined : unique(data.boards);
    const fields = filterFields(data.fields);
    // The filter is checked whenever it or the events change: against the events it will go with.
    const filter = fields !== undefined || data.events !== undefined ? { fields: fields ?? current.fields, events: data.events ?? current.events } : undefined;
    await checkTarget(p, data.url, boards, data, filter, data.destination);
    const target = destinationOf(data.url, data.destination);
    return webhookRepository.update(id, {
      // A new bound starts afresh: no lowered bound carried over from the old one.
      ...(data.maxInFlight !== undefined && data.maxInFlight !== current.maxInFlight ? { maxInFlight: data.maxInFlight, effectiveInFlight: null } : {}),
      ...(data.ratePerSecond !== undefined && data.ratePerSecond !== current.ratePerSecond ? { ratePerSecond: data.ratePerSecond } : {}),
      ...(data.ordering !== undefined ? { ordering: data.ordering } : {}),
      ...(data.payload !== undefined ? { payload: data.payload } : {}),
      ...(target ?? {}),
      ...(data.events !== undefined ? { events: unique(data.events) } : {}),
      ...(boards !== undefined ? { boardIds: boards } : {}),
      ...(fields !== undefined ? { fields } : {}),
      ...(data.description !== undefined ? { description: data.description } : {}),
      ...(data.retrySchedule !== undefined ? { retrySchedule: data.retrySchedule } : {}),
    }, (tx, updated) => subscriptionAudit(p, 'webhook_subscription.updated', id, current, updated)(tx, undefined));
  },

  async delete(p: Principal, id: string): Promise<void> {
    const s = await find(p, id);
    await webhookRepository.delete(id, new Date(), subscriptionAudit(p, 'webhook_subscription.deleted', id, s, null));
  },

  async rotateSecret(p: Principal, id: string) {
    const s = await find(p, id);
    const secret = generateWebhookSecret();
    const at = new Date();
    const subscription = await withSecretKeys('rotate a signing secret', id, () =>
      webhookRepository.rotateSecret(id, secret, at, subscriptionAudit(p, 'webhook_subscription.secret_rotated', id, { secretRotatedAt: s.secretRotatedAt }, { secretRotatedAt: at })),
    );
    return { subscription, secret };
  },

  /** Queues one webhook.test event for this subscription alone, whatever its filters; while paused, only below the held-delivery cap. */
  async sendTest(p: Principal, id: string) {
    const s = await find(p, id);
    if (s.condition === 'disabled') throw new AppError('invalid_state_transition', 'The subscription is disabled: enable it before sending a test event');
    const heldCap = config.limits.maxHeldDeliveriesPerSubscription;
    const envelope = await webhookRepository.queueTestEvent(s.id, heldCap, {
      type: 'webhook.test',
      workspace: p.workspace,
      actor: actorOf(p),
      targetSubscriptionId: s.id,
      data: { subscriptionId: s.id, url: s.url, message: 'A test event sent from the webhook settings.' },
    }, (tx, event) => subscriptionAudit(p, 'webhook_subscription.test_sent', s.id, null, { eventId: event.id })(tx, undefined));
    if (!envelope) {
      throw new AppError('held_delivery_limit_reached', `The subscription is paused and holds ${heldCap} deliveries, its limit: resume it before sending test events`);
    }
    return { eventId: envelope.id, type: envelope.type, occurredAt: envelope.occurredAt, subscription: s };
  },

  /** paused → receiving; the held deliveries then go out in event order. */
  async resume(p: Principal, id: string) {
    const s = await find(p, id);
    if (!(await conditionRepository.resume(s.id, actorOf(p), conditionAudit(p, 'webhook_subscription.resumed', s, 'receiving')))) {
      throw new AppError('invalid_state_transition', `The subscription is ${s.condition}, not paused`);
    }
    await wakeAfterResume(s.id, s.workspaceId);
    return (await webhookRepository.find(p.workspace.id, id))!;
  },

  /** By hand, receiving → paused: nothing is sent until resumed; what waits, and new events, are held (up to the cap). */
  async pause(p: Principal, id: string) {
    requireSubscriptionId(id);
    const s = await find(p, id);
    if (!(await conditionRepository.pause(s.id, actorOf(p), conditionAudit(p, 'webhook_subscription.paused', s, 'paused')))) {
      throw new AppError('invalid_state_transition', `The subscription is ${s.condition}, not receiving`);
    }
    return (await webhookRepository.find(p.workspace.id, id))!;
  },

  /** By hand, receiving or paused → disabled: what waits is cancelled; nothing is sent until enabled. */
  async disable(p: Principal, id: string) {
    requireSubscriptionId(id);
    const s = await find(p, id);
    if (!(await conditionRepository.disable(s.id, actorOf(p), conditionAudit(p, 'webhook_subscription.disabled', s, 'disabled')))) {
      throw new AppError('invalid_state_transition', 'The subscription is disabled already');
    }
    return (await webhookRepository.find(p.workspace.id, id))!;
  },

  /** disabled → receiving. Events that occurred while disabled are not delivered later. */
  async enable(p: Principal, id: string) {
    const s = await find(p, id);
    if (!(await conditionRepository.enable(s.id, actorOf(p), conditionAudit(p, 'webhook_subscription.enabled', s, 'receiving')))) {
      throw new AppError('invalid_state_transition', `The subscription is ${s.condition}, not disabled`);
    }
    return (await webhookRepository.find(p.workspace.id, id))!;
  },
};

/** Wakes the subscription's delivery run (its held deliveries are its queue again); if Temporal is away, the relay's sweep of overdue deliveries wakes it later. */
async function wakeAfterResume(subscriptionId: string, workspaceId: number) {
  try {
    const { client, taskQueue } = temporal();
    await wakeRun(client, taskQueue, { subscriptionId, workspaceId });
  } catch (err) {
    logger.warn({ err, subscriptionId }, 'delivery run after resume deferred to the relay');
  }
}
