// The typed API client example (examples/api-client) against the real HTTP app on a loopback port:
// its functions as an integrator calls them, and its demo script as its own process. Its types must
// be what openapi-typescript makes of the served document, and every example must compile against
// them (tsx runs code without type-checking it, and CI runs no tsc).
import fs from 'node:fs';
import path from 'node:path';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createTicket, createTicketingClient, editTicket, eventsSince, listTickets, type NewTicket } from '../../examples/api-client/client.ts';
import { createTestWorkspace, randomSuffix } from '../support/fixtures.ts';
import { supportBoard, type Ws } from '../tickets/helpers.ts';
import { serveApp } from '../support/http.ts';
import { runExample } from './support.ts';

let app: Awaited<ReturnType<typeof serveApp>>;
let baseUrl: string;

beforeAll(async () => {
  app = await serveApp();
  baseUrl = `${app.origin}/public/v1`;
});
afterAll(() => app?.close());

async function workspaceWithKey() {
  const ws = await createTestWorkspace('Examples');
  const { value } = await ws.key();
  return { ws, apiKey: value };
}

function newTicket(ws: Ws, subject: string): NewTicket {
  const s = supportBoard(ws);
  return { boardId: s.board.id, subject, requesterEmail: 'customer@example.com', fields: [{ fieldId: s.product, value: 'Web' }] };
}

const root = path.resolve(import.meta.dirname, '../..');

describe('examples/api-client', () => {
  it('has the types openapi-typescript generates from the served document, and the examples compile against them', { timeout: 60_000 }, async () => {
    const served = await (await fetch(`${baseUrl}/openapi.json`)).json();
    const generated = COMMENT_HEADER + astToString(await openapiTS(served, { silent: true }));
    expect(generated === fs.readFileSync(path.join(root, 'examples/api-client/openapi-types.ts'), 'utf8'), 'run npm run generate').toBe(true);

    const { config } = ts.readConfigFile(path.join(root, 'tsconfig.json'), (file) => ts.sys.readFile(file));
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
    const files = ts.sys.readDirectory(path.join(root, 'examples'), ['.ts']);
    expect(files.map((f) => path.relative(root, f))).toContain('examples/webhook-receiver/server.ts');
    const diagnostics = ts.getPreEmitDiagnostics(ts.createProgram(files, options));
    const host = { getCanonicalFileName: (f: string) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
    expect(ts.formatDiagnostics(diagnostics, host)).toBe('');
  });

  it('creates a ticket once: a retry with the same Idempotency-Key after a lost answer replays it', async () => {
    const { ws, apiKey } = await workspaceWithKey();
    // The first answer is lost on the way back (the ticket exists, the caller does not know).
    let posts = 0;
    const losingFetch = async (request: Request) => {
      const response = await fetch(request);
      if (request.method === 'POST' && ++posts === 1) throw new TypeError('fetch failed: connection reset');
      return response;
    };
    const client = createTicketingClient({ baseUrl, apiKey, fetch: losingFetch as typeof fetch });
    const subject = `Lost answer ${randomSuffix()}`;

    const created = await createTicket(client, newTicket(ws, subject), `key-${randomSuffix()}`);
    expect(posts).toBe(2);
    expect(created.replayed).toBe(true);
    expect(created.ticket).toMatchObject({ subject, boardId: supportBoard(ws).board.id, channel: 'api' });

    const all = [];
    for await (const t of listTickets(client)) all.push(t);
    expect(all.map((t) => t.id)).toEqual([created.ticket.id]);
  });

  it('pages through every ticket, newest first, by following nextCursor', async () => {
    const { ws, apiKey } = await workspaceWithKey();
    const client = createTicketingClient({ baseUrl, apiKey });
    const ids: number[] = [];
    for (let i = 1; i <= 5; i++) {
      const { ticket, replayed } = await createTicket(client, newTicket(ws, `Ticket ${i}`), `key-${randomSuffix()}`);
      expect(replayed).toBe(false);
      ids.push(ticket.id);
    }
    const listed = [];
    for await (const t of listTickets(client, { limit: 2 })) listed.push(t.id);
    expect(listed).toEqual(ids.reverse());
  });

  it('changes a ticket only as read (If-Match), reading it again when another change came in between', async () => {
    const { ws, apiKey } = await workspaceWithKey();
    const client = createTicketingClient({ baseUrl, apiKey });
    const { ticket } = await createTicket(client, newTicket(ws, 'Counter 0'), `key-${randomSuffix()}`);
    // Another writer changes the ticket between the example's read and its PATCH, once.
    let raced = false;
    const racingFetch = async (request: Request) => {
      if (request.method === 'PATCH' && !raced) {
        raced = true;
        await client.PATCH('/tickets/{id}', { params: { path: { id: ticket.id } }, body: { subject: 'Counter 1' } });
      }
      return fetch(request);
    };
    const racing = createTicketingClient({ baseUrl, apiKey, fetch: racingFetch as typeof fetch });
    const reads: string[] = [];
    const edited = await editTicket(racing, ticket.id, (t) => {
      reads.push(t.subject);
      return { subject: `Counter ${Number(t.subject.split(' ')[1]) + 1}` };
    });
    // The first attempt, based on "Counter 0", was refused; the second built on the other writer's change.
    expect(reads).toEqual(['Counter 0', 'Counter 1']);
    expect(edited).toMatchObject({ subject: 'Counter 2', version: 3 });
  });

  it('catches up with the events feed: the events after one it processed, and a cursor to continue from', async () => {
    const { ws, apiKey } = await workspaceWithKey();
    const client = createTicketingClient({ baseUrl, apiKey });
    const { ticket } = await createTicket(client, newTicket(ws, 'Followed'), `key-${randomSuffix()}`);
    // The feed serves events below its horizon (src/events/event-feed.repository.ts): the oldest
    // transaction still running on the server, which on a PostgreSQL server shared with other
    // test processes can be another database's. So each step waits until its event is served.
    const WAIT = { timeout: 30_000 };
    const newest = async () => (await client.GET('/events', { params: { query: { limit: 1 } } })).data!.data[0];
    await expect.poll(newest, WAIT).toMatchObject({ type: 'ticket.created', data: { id: ticket.id, version: 1 } });
    const created = (await newest());
    await editTicket(client, ticket.id, (t) => ({ subject: `${t.subject}, again` }));
    let first!: Awaited<ReturnType<typeof eventsSince>>;
    await expect.poll(async () => (first = await eventsSince(client, { after: created.id })).events.map((e) => [e.type, e.data.version]), WAIT).toEqual([['ticket.updated', 2]]);
    const none = await eventsSince(client, { cursor: first.cursor });
    expect(none.events).toEqual([]);
    await editTicket(client, ticket.id, () => ({ state: 'In progress' }));
    await expect.poll(async () => (await eventsSince(client, { cursor: none.cursor })).events.map((e) => [e.type, e.data.version]), WAIT).toEqual([['ticket.state_changed', 3]]);
  });

  it('reports a refusal as an ApiError with the problem code', async () => {
    const { ws, apiKey } = await workspaceWithKey();
    const client = createTicketingClient({ baseUrl, apiKey });
    const refused = createTicket(client, { ...newTicket(ws, 'Nowhere'), boardId: 'brd_none' }, `key-${randomSuffix()}`);
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    await expect(refused).rejects.toMatchObject({ status: 422, code: 'validation_failed' });
  });

  it('the demo script runs against the service', { timeout: 60_000 }, async () => {
    const { apiKey } = await workspaceWithKey();
    const demo = runExample('api-client/demo.ts', { TICKETING_API_URL: baseUrl, TICKETING_API_KEY: apiKey });
    expect(await demo.exited).toBe(0);
    const out = demo.output();
    const [, id, board] = out.match(/created ticket (\d+) on board (.+) \(replayed: false\)/) ?? [];
    expect(id, out).toBeDefined();
    expect(out).toContain(`sent again with the same Idempotency-Key: ticket ${id} (replayed: true)`);
    expect(out).toContain(`board ${board}: 1 ticket(s)`);
    expect(out).toContain(`changed ticket ${id} to version 2`);
    expect(out).toContain('a change based on version 1: 412 precondition_failed');
    expect(out).toContain('events since creating it: ticket.updated v2');
  });
});
