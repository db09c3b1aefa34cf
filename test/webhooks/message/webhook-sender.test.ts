// The sender against a real HTTPS receiver that drops a kept-alive connection when it is reused:
// the attempt goes through on a new connection instead of failing. And what the delivery log
// learns of a host that cannot be reached.
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookSender } from '../../../src/webhooks/message/webhook-sender.ts';
import { createTestCa, RECEIVER_PORT, type TestCa } from '../receiver.ts';

describe('webhook sender', () => {
  let tls: TestCa;
  let server: https.Server;
  let url = '';
  const seen: { socket: number; nth: number }[] = [];

  beforeAll(async () => {
    tls = createTestCa();
    let sockets = 0;
    const perSocket = new WeakMap<object, { id: number; count: number }>();
    server = https.createServer({ key: tls.key, cert: tls.cert, keepAliveTimeout: 60_000 }, (req, res) => {
      let s = perSocket.get(req.socket);
      if (!s) perSocket.set(req.socket, (s = { id: ++sockets, count: 0 }));
      s.count += 1;
      seen.push({ socket: s.id, nth: s.count });
      req.resume();
      req.on('end', () => {
        // The second request on a connection: drop it without an answer, as a receiver whose
        // idle timeout just closed the connection would.
        if (s.count > 1) return req.socket.destroy();
        res.writeHead(200, { connection: 'keep-alive' });
        res.end('ok');
      });
    });
    // Port 8443, as the URL rule wants, on the first loopback address another test leaves free.
    for (let i = 1; !url; i++) {
      const host = `127.0.0.${i}`;
      const error = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
        server.once('error', resolve);
        server.listen({ host, port: RECEIVER_PORT, exclusive: true }, () => resolve(undefined));
      });
      if (!error) url = `https://${host}:${RECEIVER_PORT}/hook`;
      else if (error.code !== 'EADDRINUSE' || i === 9) throw error;
    }
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('retries once on a new connection when a reused one is dropped before answering', async () => {
    const sender = createWebhookSender({ allowPrivateTargets: true, ca: tls.ca });
    const send = () => sender.send(url, {}, '{}', { workspaceId: 1 });
    const first = await send();
    expect(first).toMatchObject({ httpStatus: 200, responseExcerpt: 'ok' });
    const second = await send();
    expect(second).toMatchObject({ httpStatus: 200, responseExcerpt: 'ok' });
    expect(seen).toEqual([
      { socket: 1, nth: 1 },
      { socket: 1, nth: 2 },
      { socket: 2, nth: 1 },
    ]);
    sender.close();
  });

  it('gives one neutral error for a name that does not exist and one that resolves to a private address (no oracle)', async () => {
    // A tenant's public name pointed by CNAME at an internal one: whether db.corp.internal exists must not show.
    const answers: Record<string, () => Promise<string[]>> = {
      'exists.example.com': async () => ['10.0.0.5'],
      'missing.example.com': () => Promise.reject(Object.assign(new Error('queryA ENOTFOUND missing.example.com'), { code: 'ENOTFOUND' })),
    };
    const sender = createWebhookSender({ allowPrivateTargets: false, hosts: { resolve: (hostname) => answers[hostname]() } });
    try {
      const blocked = await sender.send('https://exists.example.com/hook', {}, '{}', { workspaceId: 1 });
      const missing = await sender.send('https://missing.example.com/hook', {}, '{}', { workspaceId: 1 });
      expect(blocked.httpStatus).toBeUndefined();
      expect(blocked.error).toBeTruthy();
      expect(blocked.error!.replace('exists', 'HOST')).toBe(missing.error!.replace('missing', 'HOST'));
      for (const error of [blocked.error!, missing.error!]) expect(error).not.toMatch(/ENOTFOUND|getaddrinfo|queryA|10\.0\.0\.5|private/);
    } finally {
      sender.close();
    }
  });
});
