// The NATS sender against a real server with JetStream (test/support/brokers.ts): a batch becomes
// stream messages on `<subject>.<event type>`, read back in order with their headers and exact
// bytes; a retried delivery (the same webhook-id) is acknowledged as a duplicate and not stored
// twice; a subject no stream captures waits (retry); a wrong password and a publish the user may
// not make are permanent (a server of the file's own with users); a stopped server is a retry, and
// the same sender delivers again once it is back.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../scripts/free-port.ts';
import { provisionedPath } from '../../../scripts/provision-env.ts';
import { createNatsSender } from '../../../src/webhooks/message/destinations/nats.ts';
import { broker, ownBroker } from '../../support/brokers.ts';
import { uniqueId } from '../../support/temporal.ts';
import { loopback, outgoing, verifies } from './outgoing.ts';

const sender = createNatsSender();
afterAll(() => sender.close());

type Credentials = { username: string; password: string } | { token: string } | null;
const destination = (servers: string[], subject: string, credentials: Credentials = null) => ({ type: 'nats' as const, settings: { servers, subject }, credentials });

/** A stream capturing `<subject>.>`, as an integrator sets it up. */
async function stream(nc: NatsConnection): Promise<string> {
  const subject = uniqueId('hooks').replaceAll('-', '_');
  await (await jetstreamManager(nc)).streams.add({ name: subject, subjects: [`${subject}.>`] });
  return subject;
}

async function readBack(nc: NatsConnection, name: string, count: number): Promise<JsMsg[]> {
  const consumer = await jetstream(nc).consumers.get(name);
  const got: JsMsg[] = [];
  for await (const m of await consumer.fetch({ max_messages: count, expires: 5_000 })) got.push(m);
  return got;
}

describe('NATS sender', () => {
  let servers: string[];
  let nc: NatsConnection;
  beforeAll(async () => {
    servers = [(await broker('nats')).servers];
    nc = await connect({ servers });
  });
  afterAll(() => nc?.close());

  it('publishes a batch to the stream in order, headers and bytes intact, and a retried one is a duplicate', async () => {
    const subject = await stream(nc);
    const messages = outgoing([{ orderKey: 'tkt_a', eventType: 'ticket.created' }, { orderKey: 'tkt_b' }, { orderKey: 'tkt_a', eventType: 'ticket.deleted' }]);
    const outcomes = await sender.send(destination(servers, subject), messages, loopback());
    expect(outcomes.map((o) => o.ack)).toEqual([1, 2, 3].map((seq) => `JetStream stream ${subject} seq ${seq}`));
    expect(outcomes.every((o) => o.verdict === 'delivered')).toBe(true);

    const got = await readBack(nc, subject, 3);
    expect(got.map((m) => m.subject)).toEqual(messages.map((m) => `${subject}.${m.eventType}`));
    got.forEach((m, i) => {
      const headers = Object.fromEntries([...m.headers!.keys()].map((k) => [k, m.headers!.get(k)]));
      expect(Buffer.from(m.data).equals(Buffer.from(messages[i].body))).toBe(true);
      expect(headers).toMatchObject({ ...messages[i].headers, 'Nats-Msg-Id': messages[i].headers['webhook-id'], 'content-type': 'application/json', 'webhook-event-type': messages[i].eventType });
      expect(verifies(m.string(), headers)).toBe(true);
    });

    // The engine sends a delivery again when it did not see the acknowledgement: the stream keeps one.
    const again = await sender.send(destination(servers, subject), [messages[1]], loopback());
    expect(again).toEqual([expect.objectContaining({ verdict: 'delivered', ack: `JetStream stream ${subject} seq 2 (duplicate)` })]);
    expect((await (await jetstreamManager(nc)).streams.info(subject)).state.messages).toBe(3);
  });

  it('answers retry for a subject no stream captures', async () => {
    const outcomes = await sender.send(destination(servers, uniqueId('nostream').replaceAll('-', '_')), outgoing([{ orderKey: 'tkt_a' }]), loopback());
    expect(outcomes).toEqual([expect.objectContaining({ verdict: 'retry', error: expect.stringMatching(/no JetStream stream captures/) })]);
  });

  it('refuses a plain connection to loopback by the URL rule, before connecting', async () => {
    const outcomes = await sender.send(destination(servers, 'hooks'), outgoing([{ orderKey: 'tkt_a' }]), { ...loopback(), allowPrivateTargets: false });
    expect(outcomes).toEqual([expect.objectContaining({ verdict: 'retry', error: expect.stringMatching(/URL rule/) })]);
  });

  describe('on a server with users', () => {
    let server: ChildProcess;
    let own: string[];
    let dir: string;
    beforeAll(async () => {
      const port = await freePort();
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nats-users-'));
      const config = `listen: 127.0.0.1:${port}
jetstream { store_dir: "${dir}" }
accounts { A { jetstream: enabled, users: [
  { user: alice, password: "s3cret-Pa55" },
  { user: reader, password: "s3cret-Pa55", permissions: { publish: { deny: ["hooks.>"] } } }
] } }
`;
      fs.writeFileSync(path.join(dir, 'nats.conf'), config);
      server = spawn(provisionedPath('NATS_SERVER_PATH'), ['-c', path.join(dir, 'nats.conf')], { stdio: 'ignore' });
      own = [`127.0.0.1:${port}`];
      // Ready when alice's connection creates the stream.
      for (let tries = 0; ; tries++) {
        try {
          const admin = await connect({ servers: own, user: 'alice', pass: 's3cret-Pa55', reconnect: false });
          await (await jetstreamManager(admin)).streams.add({ name: 'hooks', subjects: ['hooks.>'] });
          await admin.close();
          break;
        } catch (err) {
          if (tries > 100) throw err;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    });
    afterAll(async () => {
      if (server?.exitCode === null) await new Promise((resolve) => server.once('exit', resolve).kill());
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('delivers with the right password', async () => {
      const outcomes = await sender.send(destination(own, 'hooks', { username: 'alice', password: 's3cret-Pa55' }), outgoing([{ orderKey: 'tkt_a' }]), loopback());
      expect(outcomes).toEqual([expect.objectContaining({ verdict: 'delivered', ack: 'JetStream stream hooks seq 1' })]);
    });

    it('answers permanent for a wrong password, without the password in its words', async () => {
      const outcomes = await sender.send(destination(own, 'hooks', { username: 'alice', password: 'wrong-Pa55' }), outgoing([{ orderKey: 'tkt_a' }]), loopback());
      expect(outcomes).toEqual([expect.objectContaining({ verdict: 'permanent', error: expect.stringMatching(/Authorization Violation/) })]);
      expect(outcomes[0].error).not.toContain('wrong-Pa55');
    });

    it('answers permanent for a publish the user may not make', async () => {
      const outcomes = await sender.send(destination(own, 'hooks', { username: 'reader', password: 's3cret-Pa55' }), outgoing([{ orderKey: 'tkt_a' }]), loopback());
      expect(outcomes).toEqual([expect.objectContaining({ verdict: 'permanent', error: expect.stringMatching(/Permissions Violation for Publish/) })]);
    });
  });

  it('answers retry while its server is stopped, then delivers on a new connection once it is back', async () => {
    const ownServer = await ownBroker('nats');
    try {
      const admin = await connect({ servers: ownServer.address.servers, reconnect: false });
      const subject = await stream(admin);
      await admin.close();
      const at = [ownServer.address.servers];
      const context = loopback();
      expect((await sender.send(destination(at, subject), outgoing([{ orderKey: 'tkt_a' }]), context)).map((o) => o.verdict)).toEqual(['delivered']);
      await ownServer.stop();
      expect((await sender.send(destination(at, subject), outgoing([{ orderKey: 'tkt_a' }, { orderKey: 'tkt_a' }]), context)).map((o) => o.verdict)).toEqual(['retry', 'retry']);
      await ownServer.start();
      expect(await sender.send(destination(at, subject), outgoing([{ orderKey: 'tkt_a' }]), context)).toEqual([
        expect.objectContaining({ verdict: 'delivered', ack: `JetStream stream ${subject} seq 2` }),
      ]);
    } finally {
      await ownServer.close();
    }
  }, 60_000);
});
