// The scale benchmark's data: workspaces made by the real service (admin, roles, the two demo
// boards, an API key each), then tickets, subscriptions, events, deliveries and attempts
// generated in SQL (INSERT … SELECT generate_series), so a million rows take minutes, not hours.
//
// The data grows by tenants: one workspace per TICKETS_PER_WORKSPACE rows (100 at 1M, as the
// issue's 1,000 subscriptions in 100 workspaces; 1 at 10k), each the same size at every scale.
// A page then has the same entries to return at both scales, whatever its filter, and
// what the comparison measures is what the issue asks: whether a page's cost grows with the
// tables around it. With a fixed 100 workspaces, the 10k data had ~30 attempts per subscription
// and 100 tickets per workspace, so most pages were not full there and cost less for that alone.
// (How a page's cost grows with one tenant's own data is what the plans in bench/results/findings-cluster.md measured.)
//
// Per workspace:
//   - TICKETS_PER_WORKSPACE tickets over its two boards and their states, updated over 90 days;
//   - SUBSCRIPTIONS_PER_WORKSPACE subscriptions;
//   - as many events, spread over the last DAYS days in commit order, all relayed but the
//     newest UNRELAYED of the whole data (what the outbox claim finds);
//   - two deliveries per event, to two of its workspace's subscriptions; 1 in 20 failed, 1 in
//     97 cancelled, 1 in 199 held, the rest succeeded;
//   - one attempt per delivery and a second (after a failed first) for every other one:
//     1.5 attempts per delivery, 3 per event, ~3,000 per subscription.
import crypto from 'node:crypto';
import pg from 'pg';
import { workspaceService } from '../../src/workspaces/workspace.service.ts';
import { apiKeyService } from '../../src/api-keys/api-key.service.ts';
import { API_SCOPES } from '../../src/access/principal.ts';

const TICKETS_PER_WORKSPACE = 10_000;
export const SUBSCRIPTIONS_PER_WORKSPACE = 10;
export const DAYS = 40;
export const UNRELAYED = 100;
const UNTHROTTLED_PER_MINUTE = 100_000_000;

export interface ScaleWorkspace {
  id: number;
  apiKey: string;
  boardIds: string[];
}

export interface ScaleFixture {
  tickets: number;
  events: number;
  /** When the data was generated: the newest event is just before it. */
  generatedAt: string;
  /** Days of the oldest that retention purged in earlier runs (run.ts). */
  purgedDays?: number;
  workspaces: ScaleWorkspace[];
}

/** `prefix_` and 26 digits: the shape (and sort order) of our ULID ids. */
const idSql = (prefix: string, n: string) => `'${prefix}_' || lpad((${n})::text, 26, '0')`;

/** How many workspaces the data of `rows` tickets has (at least one). */
const workspacesFor = (rows: number) => Math.max(1, Math.floor(rows / TICKETS_PER_WORKSPACE));

export async function generate(databaseUrl: string, rows: number, log: (line: string) => void): Promise<ScaleFixture> {
  const workspaceCount = workspacesFor(rows);
  const workspaces: ScaleWorkspace[] = [];
  for (let n = 0; n < workspaceCount; n++) {
    const suffix = crypto.randomBytes(4).toString('hex');
    const ws = await workspaceService.create({
      name: `Scale ${n}`,
      domain: `https://scale-${n}-${suffix}.example.test`,
      adminEmail: `admin-${suffix}@example.test`,
      adminName: 'Scale Admin',
      adminPassword: crypto.randomBytes(12).toString('base64url'),
    });
    const key = await apiKeyService.create(ws.workspace.id, { name: 'Scale key', role: ws.roles.admin.id, scopes: [...API_SCOPES] }, ws.admin.id);
    workspaces.push({ id: ws.workspace.id, apiKey: key.value, boardIds: ws.boards.map((b) => b.id) });
  }
  log(`${workspaceCount} workspaces made by the service`);

  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const step = async (what: string, sql: string) => {
    const started = Date.now();
    const result = await client.query(sql);
    log(`${what}: ${result.rowCount ?? ''} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  };
  try {
    const generatedAt = new Date();
    const t0 = `'${generatedAt.toISOString()}'::timestamp(3)`;
    await client.query(`UPDATE "ApiKey" SET "requestsPerMinute" = ${UNTHROTTLED_PER_MINUTE}`);
    // n: the workspace's number; its boards with their state ids in order.
    await step(
      'boards',
      `CREATE TABLE scale_board AS
         SELECT w.n, b.nb, b.id AS board_id, b.priorities,
                (SELECT array_agg(s.id ORDER BY s.position) FROM "BoardState" s WHERE s."boardId" = b.id) AS states
           FROM (SELECT id, row_number() OVER (ORDER BY id) - 1 AS n, (SELECT id FROM "User" u WHERE u."workspaceId" = "Workspace".id AND u.kind = 'human' LIMIT 1) AS admin
                   FROM "Workspace") w
           JOIN LATERAL (SELECT id, priorities, row_number() OVER (ORDER BY id) - 1 AS nb FROM "Board" WHERE "workspaceId" = w.id) b ON true`,
    );
    await client.query(`CREATE TABLE scale_ws AS
      SELECT row_number() OVER (ORDER BY id) - 1 AS n, id, (SELECT id FROM "User" u WHERE u."workspaceId" = "Workspace".id AND u.kind = 'human' LIMIT 1) AS admin
        FROM "Workspace"`);
    // Bulk load as a restore does: foreign-key triggers off (the rows are consistent by
    // construction; needs a superuser), secondary indexes built once at the end.
    await client.query(`SET session_replication_role = replica`);
    const { rows: indexes } = await client.query<{ name: string; def: string }>(
      `SELECT indexname AS name, indexdef AS def FROM pg_indexes
        WHERE schemaname = current_schema() AND tablename IN ('Ticket', 'Event', 'Delivery', 'DeliveryAttempt')
          AND indexname NOT IN (SELECT conname FROM pg_constraint)`,
    );
    for (const index of indexes) await client.query(`DROP INDEX "${index.name}"`);
    // Ticket i is the (i / workspaceCount)-th of workspace i % workspaceCount, on board (that) % 2;
    // its state and priority count within its board, so every workspace has the same tickets
    // (counted by i, a board's states depended on the workspace: at 1M, 2 in 5 workspaces had no
    // Closed ticket).
    await step(
      'tickets',
      `INSERT INTO "Ticket" ("workspaceId", "boardId", "subject", "description", "requesterEmail", "priority", "stateId", "fields", "channel", "createdById", "createdAt", "updatedAt")
       SELECT w.id, b.board_id, 'Generated ticket ' || i, 'Generated by the scale benchmark, ticket ' || i || ' of ${rows}.', 'customer' || (i % 5000) || '@example.test',
              b.priorities[1 + (i / ${workspaceCount} / 2) % array_length(b.priorities, 1)], b.states[1 + (i / ${workspaceCount} / 2) % array_length(b.states, 1)], '[]', 'api', w.admin,
              ${t0} - make_interval(secs => 90 * 86400.0 * (${rows} - i) / ${rows}) - interval '1 day',
              ${t0} - make_interval(secs => 90 * 86400.0 * (${rows} - i) / ${rows})
         FROM generate_series(1, ${rows}) i
         JOIN scale_ws w ON w.n = i % ${workspaceCount}
         JOIN scale_board b ON b.n = w.n AND b.nb = (i / ${workspaceCount}) % 2`,
    );
    await step(
      'subscriptions',
      `INSERT INTO "WebhookSubscription" ("id", "workspaceId", "createdById", "url", "events", "secret", "createdAt", "updatedAt")
       SELECT ${idSql('wh', `w.n * ${SUBSCRIPTIONS_PER_WORKSPACE} + k`)}, w.id, w.admin, 'https://receiver-' || w.n || '-' || k || '.example.test/hook',
              ARRAY['ticket.created', 'ticket.updated', 'ticket.state_changed', 'ticket.comment_added'], 'whsec_' || md5(w.n || '-' || k), ${t0} - interval '60 days', ${t0} - interval '60 days'
         FROM scale_ws w, generate_series(0, ${SUBSCRIPTIONS_PER_WORKSPACE - 1}) k`,
    );
    // Event j is the (j / workspaceCount)-th of workspace j % workspaceCount, its type counted
    // within the workspace (by j, a workspace's events at 1M all had one type), and occurs
    // DAYS·(rows − j)/rows days before t0.
    await step(
      'events',
      `INSERT INTO "Event" ("id", "seq", "workspaceId", "type", "actorId", "boardId", "ticketId", "payload", "occurredAt", "relayedAt")
       SELECT ${idSql('evt', 'j')}, j, w.id, (ARRAY['ticket.created', 'ticket.updated', 'ticket.state_changed', 'ticket.comment_added'])[1 + (j / ${workspaceCount}) % 4], w.admin, NULL, j,
              jsonb_build_object('id', ${idSql('evt', 'j')}, 'type', (ARRAY['ticket.created', 'ticket.updated', 'ticket.state_changed', 'ticket.comment_added'])[1 + (j / ${workspaceCount}) % 4],
                                 'occurredAt', ${t0} - make_interval(secs => ${DAYS} * 86400.0 * (${rows} - j + 1) / ${rows}),
                                 'workspace', jsonb_build_object('id', w.id), 'actor', jsonb_build_object('id', w.admin, 'name', 'Scale Admin'),
                                 'changes', '[]'::jsonb, 'data', jsonb_build_object('id', j, 'subject', 'Generated ticket ' || j, 'priority', 'normal', 'state', 'New')),
              ${t0} - make_interval(secs => ${DAYS} * 86400.0 * (${rows} - j + 1) / ${rows}),
              CASE WHEN j > ${rows} - ${UNRELAYED} THEN NULL ELSE ${t0} - make_interval(secs => ${DAYS} * 86400.0 * (${rows} - j + 1) / ${rows}) + interval '1 second' END
         FROM generate_series(1, ${rows}) j
         JOIN scale_ws w ON w.n = j % ${workspaceCount}`,
    );
    await client.query(`SELECT setval(pg_get_serial_sequence('"Event"', 'seq'), ${rows})`);
    // Delivery 2j + d of event j goes to subscription (j + 3d) % SUBSCRIPTIONS_PER_WORKSPACE of its workspace.
    await step(
      'deliveries',
      `INSERT INTO "Delivery" ("id", "eventId", "subscriptionId", "status", "attemptCount", "workflowId", "createdAt", "updatedAt")
       SELECT ${idSql('dlv', '2 * j + d')}, e.id, ${idSql('wh', `(j % ${workspaceCount}) * ${SUBSCRIPTIONS_PER_WORKSPACE} + (j / ${workspaceCount} + 3 * d) % ${SUBSCRIPTIONS_PER_WORKSPACE}`)},
              s.status::"DeliveryStatus", CASE WHEN (2 * j + d) % 2 = 0 THEN 2 ELSE 1 END,
              'delivery:' || e.id || ':' || ${idSql('wh', `(j % ${workspaceCount}) * ${SUBSCRIPTIONS_PER_WORKSPACE} + (j / ${workspaceCount} + 3 * d) % ${SUBSCRIPTIONS_PER_WORKSPACE}`)},
              e."occurredAt" + interval '1 second', e."occurredAt" + interval '2 minutes'
         FROM generate_series(1, ${rows - UNRELAYED}) j
         CROSS JOIN generate_series(0, 1) d
         JOIN "Event" e ON e.seq = j
         CROSS JOIN LATERAL (SELECT CASE WHEN j % 199 = 0 THEN 'held' WHEN j % 97 = 0 THEN 'cancelled' WHEN j % 20 = 0 THEN 'failed' ELSE 'succeeded' END AS status) s`,
    );
    await step(
      'attempts',
      `INSERT INTO "DeliveryAttempt" ("id", "deliveryId", "subscriptionId", "eventId", "eventType", "attempt", "trigger", "status", "httpStatus", "durationMs",
                                      "responseExcerpt", "payload", "attemptedAt", "workflowId")
       SELECT ${idSql('att', '2 * (substr(d.id, 5)::bigint) + a')}, d.id, d."subscriptionId", d."eventId", e.type, a + 1, 'scheduled',
              (CASE WHEN a + 1 < d."attemptCount" OR d.status <> 'succeeded' THEN 'failed' ELSE 'succeeded' END)::"DeliveryStatus",
              CASE WHEN a + 1 < d."attemptCount" OR d.status <> 'succeeded' THEN 503 ELSE 200 END, 40 + (a * 37 + length(d.id)) % 200,
              'ok', e.payload::text, e."occurredAt" + make_interval(secs => 1 + 60 * a), d."workflowId"
         FROM "Delivery" d
         JOIN "Event" e ON e.id = d."eventId"
         CROSS JOIN LATERAL generate_series(0, d."attemptCount" - 1) a`,
    );
    await client.query('DROP TABLE scale_board, scale_ws');
    const indexing = Date.now();
    for (const index of indexes) await client.query(index.def);
    await client.query(`SET session_replication_role = DEFAULT`);
    log(`${indexes.length} indexes built in ${((Date.now() - indexing) / 1000).toFixed(1)} s`);
    await step('vacuum analyze', 'VACUUM ANALYZE');
    return { tickets: rows, events: rows, generatedAt: generatedAt.toISOString(), workspaces };
  } finally {
    await client.end();
  }
}
