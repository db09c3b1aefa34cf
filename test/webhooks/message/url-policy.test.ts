// The webhook URL rule (docs/integrators/webhooks.md, "Subscriptions") against a table of addresses and spellings. Only IP
// literals and localhost are used; other names go through a stub resolver, so nothing here
// reaches beyond loopback.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  WEBHOOK_URL_PATTERN,
  addressRestriction,
  checkWebhookUrl,
  guardedLookup,
  normaliseWebhookUrl,
  validateWebhookUrl,
} from '../../../src/webhooks/message/url-policy.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';

const stubDns: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'rebind.example.com': ['93.184.216.34', '10.0.0.5'],
  'internal.example.com': ['fd00::1'],
  'metadata.example.com': ['169.254.169.254'],
  vm: ['127.0.0.1'],
};
const resolve = async (name: string) => {
  const found = stubDns[name];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  return found;
};

// [url, expected: null when allowed, else a fragment of the message]
const table: [string, string | null][] = [
  // allowed: public addresses, both ports, any spelling
  ['https://93.184.216.34/hook', null],
  ['https://93.184.216.34:443/hook', null],
  ['https://93.184.216.34:8443/hook', null],
  ['https://8.8.8.8./', null],
  ['https://1572395042/', null], // 93.184.216.34 as one decimal number
  ['https://0x5d.0xb8.0xd8.0x22/', null], // hex octets
  ['https://[2606:4700:4700::1111]/hook', null],
  ['https://[2a00:1450:4001:81b::200e]:8443/x?y=1', null],
  ['https://hooks.example.com/ingest', null],
  ['https://HOOKS.example.com./ingest', null],
  ['https://nxdomain.example.com/x', 'must resolve, and only to public addresses'], // does not resolve: refused as a private one is
  // scheme, port, userinfo
  ['http://93.184.216.34/hook', 'must use https'],
  ['ftp://93.184.216.34/', 'must use https'],
  ['https://93.184.216.34:8080/', 'port must be 443 or 8443'],
  ['https://93.184.216.34:80/', 'port must be 443 or 8443'],
  ['https://93.184.216.34:4443/', 'port must be 443 or 8443'],
  ['https://user:pass@93.184.216.34/', 'user name or password'],
  ['https://user@hooks.example.com/', 'user name or password'],
  ['not-a-url', 'absolute URL'],
  // loopback in every spelling
  ['https://127.0.0.1/', 'loopback'],
  ['https://127.1/', 'loopback'],
  ['https://2130706433/', 'loopback'],
  ['https://0177.0.0.1/', 'loopback'],
  ['https://0x7f.1/', 'loopback'],
  ['https://0x7f000001:8443/', 'loopback'],
  ['https://127.0.0.1./', 'loopback'],
  ['https://%31%32%37.0.0.1/', 'loopback'],
  ['https://１２７.０.０.１/', 'loopback'], // full-width digits
  ['https://[::1]/', 'loopback'],
  ['https://localhost/', 'must resolve, and only to public addresses'],
  ['https://LOCALHOST./', 'must resolve, and only to public addresses'],
  ['https://api.localhost:8443/', 'must resolve, and only to public addresses'],
  // private, link-local, CGNAT, multicast, unspecified, broadcast
  ['https://10.0.0.1/', 'private'],
  ['https://172.16.5.4/', 'private'],
  ['https://192.168.1.1:8443/', 'private'],
  ['https://169.254.169.254/latest/meta-data', 'link-local'],
  ['https://100.64.0.1/', 'CGNAT'],
  ['https://224.0.0.1/', 'multicast'],
  ['https://0.0.0.0/', 'unspecified'],
  ['https://0/', 'unspecified'],
  ['https://255.255.255.255/', 'broadcast'],
  // documentation, benchmarking and other reserved IPv4
  ['https://192.0.2.1/', 'reserved'],
  ['https://198.51.100.7/', 'reserved'],
  ['https://203.0.113.9/', 'reserved'],
  ['https://198.18.0.1/', 'reserved'],
  ['https://240.0.0.1/', 'reserved'],
  ['https://192.0.0.8/', 'reserved'],
  // IPv6 special ranges
  ['https://[::]/', 'unspecified'],
  ['https://[fe80::1]/', 'link-local'],
  ['https://[fc00::1]/', 'ULA'],
  ['https://[fd12:3456:789a::1]:8443/', 'ULA'],
  ['https://[ff02::1]/', 'multicast'],
  ['https://[::ffff:127.0.0.1]/', 'IPv4-mapped'],
  ['https://[0:0:0:0:0:ffff:7f00:1]/', 'IPv4-mapped'],
  ['https://[::ffff:8.8.8.8]/', 'IPv4-mapped'], // mapped, even to a public address
  ['https://[64:ff9b::7f00:1]/', 'NAT64'],
  ['https://[64:ff9b:1::a00:1]/', 'NAT64'],
  ['https://[2002:7f00:1::1]/', '6to4'],
  ['https://[2001:db8::1]/', 'documentation'],
  ['https://[3fff::1]/', 'documentation'],
  ['https://[2001::1]/', 'Teredo'],
  ['https://[fec0::1]/', 'site-local'],
  ['https://[100::1]/', 'discard'],
  ['https://[::127.0.0.1]/', 'not global unicast'], // deprecated IPv4-compatible form
  ['https://[4000::1]/', 'not global unicast'],
  // names that resolve there (every address counts)
  ['https://rebind.example.com/', 'must resolve, and only to public addresses'],
  ['https://internal.example.com:8443/', 'must resolve, and only to public addresses'],
  ['https://metadata.example.com/', 'must resolve, and only to public addresses'],
  ['https://vm/', 'must resolve, and only to public addresses'],
  // written forms the WHATWG parser would accept and quietly repair
  ['https://localhost../', 'must resolve, and only to public addresses'],
  ['https://localhost.../x', 'must resolve, and only to public addresses'],
  ['https://./', 'the host is missing'],
  ['https:///hooks.example.com/', 'the host is missing'],
  ['https:hooks.example.com', 'the host is missing'],
  ['https:\\\\hooks.example.com/', 'the host is missing'],
  ['https://hooks.example.com/a\r\nX-Injected: 1', 'control characters'],
  ['https://hooks.exa\tmple.com/', 'control characters'],
  ['\thttps://hooks.example.com/', 'control characters'],
  ['https://hooks.example.com/\n', 'control characters'],
  ['https://hooks.example.com/a b', 'spaces'],
  ['https://hooks.example.com/\u0000', 'control characters'],
];

describe('webhook URL policy', () => {
  it(`judges ${table.length} URLs as the URL rule says`, async () => {
    expect(table.length).toBeGreaterThanOrEqual(40);
    const verdicts = await Promise.all(
      table.map(async ([url]) => {
        const errors = await validateWebhookUrl(url, { allowPrivateTargets: false, resolve });
        return [url, errors[0]?.message ?? null] as const;
      }),
    );
    for (const [i, [url, message]] of verdicts.entries()) {
      const expected = table[i][1];
      if (expected === null) expect(message, url).toBeNull();
      else expect(message, url).toContain(expected);
      // Refusals name the rule and never what a name resolved to.
      if (message) expect(message, url).toMatch(/^breaks the URL rule: /);
      for (const address of Object.values(stubDns).flat()) expect(message ?? '', url).not.toContain(address);
    }
  });

  it('normalises what it accepts: WHATWG serialisation, no trailing dots in the host', () => {
    const opts = { allowPrivateTargets: false };
    expect(normaliseWebhookUrl('HTTPS://Hooks.Example.COM.:443/a/../in?x=1#frag', opts)).toEqual({ ok: true, url: 'https://hooks.example.com/in?x=1#frag' });
    expect(normaliseWebhookUrl('https://hooks.example.com..:8443', opts)).toEqual({ ok: true, url: 'https://hooks.example.com:8443/' });
    expect(normaliseWebhookUrl('https://0x5d.0xb8.0xd8.0x22./é', opts)).toEqual({ ok: true, url: 'https://93.184.216.34/%C3%A9' });
    expect(normaliseWebhookUrl('https://bücher.example/', opts)).toEqual({ ok: true, url: 'https://xn--bcher-kva.example/' });
    expect(normaliseWebhookUrl('https:///hooks.example.com/', opts)).toEqual({ ok: false, message: 'breaks the URL rule: must be written https://<host>/… (the host is missing)' });
    // The pattern the OpenAPI document states refuses the same written forms.
    for (const bad of ['https:///h', 'https:example.com', 'https://h/\r\n', 'https://h/a b', 'http://h/']) expect(WEBHOOK_URL_PATTERN.test(bad), bad).toBe(false);
    expect(WEBHOOK_URL_PATTERN.test('HTTPS://Hooks.Example.COM.:443/a?x=1#f')).toBe(true);
  });

  it('reports refusals as field errors on /url', async () => {
    expect(await validateWebhookUrl('https://10.1.2.3/', { allowPrivateTargets: false, resolve })).toEqual([
      { path: '/url', message: 'breaks the URL rule: must not point to a private address' },
    ]);
  });

  it('with private targets allowed, lifts the address rule but not the others', async () => {
    const opts = { allowPrivateTargets: true, resolve };
    expect(await validateWebhookUrl('https://127.0.0.1:8443/hook', opts)).toEqual([]);
    expect(await validateWebhookUrl('https://localhost/hook', opts)).toEqual([]);
    expect(await validateWebhookUrl('https://[::ffff:10.0.0.1]/', opts)).toEqual([]);
    expect((await validateWebhookUrl('https://127.0.0.1:9000/', opts))[0]?.message).toContain('port');
    expect((await validateWebhookUrl('http://127.0.0.1:8443/', opts))[0]?.message).toContain('https');
    expect((await validateWebhookUrl('https://u:p@127.0.0.1/', opts))[0]?.message).toContain('user name');
  });

  it('normalizes spellings before judging (WHATWG URL parser)', () => {
    const target = checkWebhookUrl('https://0x7f.1:8443/x', { allowPrivateTargets: true });
    expect(target.ok && target.host).toEqual({ kind: 'ip', address: '127.0.0.1' });
    const v6 = checkWebhookUrl('https://[0:0:0:0:0:ffff:7f00:1]/', { allowPrivateTargets: true });
    expect(v6.ok && v6.host).toEqual({ kind: 'ip', address: '::ffff:7f00:1' });
    expect(addressRestriction('2606:4700:4700::1111')).toBeNull();
    expect(addressRestriction('not-an-ip')).toBe('not an IP address');
  });

  describe('at connection time (the lookup hook)', () => {
    it('refuses a name that resolves to loopback before any socket opens', async () => {
      let connections = 0;
      const server = net.createServer((s) => {
        connections++;
        s.destroy();
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const { port } = server.address() as net.AddressInfo;
      try {
        const error = await new Promise<NodeJS.ErrnoException>((resolvePromise, reject) => {
          const socket = net.connect({ host: 'localhost', port, family: 4, lookup: guardedLookup({ allowPrivateTargets: false }) });
          socket.once('connect', () => reject(new Error('connected to a refused address')));
          socket.once('error', resolvePromise);
        });
        expect(error.code).toBe('EBLOCKEDADDRESS');
        expect(error.message).toBe('localhost resolves to an address the webhook URL rule refuses, or does not resolve');
        expect(connections).toBe(0);
      } finally {
        server.close();
      }
    });

    it('refuses when any one of the addresses is refused, and answers both lookup forms otherwise', async () => {
      const lookupVia = (addresses: string[], all: boolean) =>
        new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family?: number }>((r) =>
          guardedLookup({ allowPrivateTargets: false, resolve: async () => addresses })('h.example.com', { all }, (err, address, family) => r({ err, address, family })),
        );
      expect((await lookupVia(['93.184.216.34', '10.0.0.5'], false)).err?.code).toBe('EBLOCKEDADDRESS');
      expect(await lookupVia(['93.184.216.34'], false)).toEqual({ err: null, address: '93.184.216.34', family: 4 });
      expect((await lookupVia(['93.184.216.34', '2606:4700::1'], true)).address).toEqual([
        { address: '93.184.216.34', family: 4 },
        { address: '2606:4700::1', family: 6 },
      ]);
    });

    it('lets loopback through when private targets are allowed', async () => {
      const address = await new Promise<unknown>((r, reject) =>
        guardedLookup({ allowPrivateTargets: true })('localhost', { family: 4 }, (err, a) => (err ? reject(err) : r(a))),
      );
      expect(address).toBe('127.0.0.1');
    });
  });
});

describe('webhook URLs through the API', () => {
  it('stores the normalised URL and refuses the written forms the rule does not accept, at /url', async () => {
    const ws = await createTestWorkspace('URL rule');
    const key = (await ws.key({ name: 'Hooks' })).value;
    const created = await api('POST', '/webhooks', { key, body: { url: '  HTTPS://0x5d.0xb8.0xd8.0x22.:443/in/../hook  ', events: ['ticket.created'] } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.url).toBe('https://93.184.216.34/hook');
    const changed = await api('PATCH', `/webhooks/${created.body.id}`, { key, body: { url: 'https://93.184.216.34.:8443' } });
    expect(changed.body.url).toBe('https://93.184.216.34:8443/');
    for (const url of ['https://localhost../', 'https:///h', 'https:example.com', 'https://h.example/\r\nX: 1', 'https://h.example/\tx', 'https://[::1]/']) {
      const res = await api('POST', '/webhooks', { key, body: { url, events: ['ticket.created'] } });
      expect(res.status, url).toBe(422);
      expect(res.body.errors, url).toEqual([{ path: '/url', message: expect.stringMatching(/^breaks the URL rule: /) }]);
    }
  });
});

describe('refusing a host name tells nothing of internal names', () => {
  // `localhost` resolves to 127.0.0.1 (and is refused by name before any lookup); `.invalid`
  // never resolves (RFC 6761), and the system resolver is asked for it.
  it('answers the same status, code and message for a name that does not resolve and one that resolves to loopback', async () => {
    const ws = await createTestWorkspace('URL oracle');
    const key = (await ws.key({ name: 'Hooks' })).value;
    const answers = [];
    for (const url of ['https://localhost/hook', 'https://nothing-here.url-oracle.invalid/hook']) {
      const res = await api('POST', '/webhooks', { key, body: { url, events: ['ticket.created'] } });
      answers.push({ status: res.status, code: res.body.code, errors: res.body.errors });
    }
    expect(answers[0]).toEqual({ status: 422, code: 'validation_failed', errors: [{ path: '/url', message: 'breaks the URL rule: the host name must resolve, and only to public addresses' }] });
    expect(answers[1]).toEqual(answers[0]);
  });

  it('refuses a name that the system resolver maps to 127.0.0.1 with that same message (the check after resolving)', async () => {
    const dns = await import('node:dns');
    const resolved = (await dns.promises.lookup('localhost', { all: true })).map((a) => a.address);
    expect(resolved).toContain('127.0.0.1');
    // A resolver that answers for an ordinary-looking name as the system does for localhost.
    const viaLocalhost = async () => resolved;
    const refusedByAddress = await validateWebhookUrl('https://intranet.corp.example/', { allowPrivateTargets: false, resolve: viaLocalhost });
    const refusedNoName = await validateWebhookUrl('https://nothing-here.url-oracle.invalid/', { allowPrivateTargets: false });
    expect(refusedByAddress).toEqual(refusedNoName);
    expect(refusedNoName).toEqual([{ path: '/url', message: 'breaks the URL rule: the host name must resolve, and only to public addresses' }]);
  });
});
