// Who is on the other end, for limits keyed by client address: the socket's peer, or, when that
// peer is a trusted proxy (TRUSTED_PROXIES), the address it reports in X-Forwarded-For. proxy-addr
// walks the header from the right and stops at the first hop that is not trusted, so a client
// cannot choose its own address by sending the header itself.
import type { Context } from 'hono';
import proxyaddr from 'proxy-addr';
import ipaddr from 'ipaddr.js';

/**
 * The key of requests without a socket: app.fetch() called in process (tests, embedding). They
 * share one key and are limited like any address; the server (@hono/node-server) always has a socket.
 */
export const NO_SOCKET = 'in-process';

type ClientAddressOf = (c: Context) => string;

export function clientAddressResolver(trustedProxies: readonly string[]): ClientAddressOf {
  const trust = proxyaddr.compile([...trustedProxies]);
  // A kept-alive connection sends request after request from one peer, mostly with the same
  // header: its last answer is reused instead of parsing the addresses again (proxy-addr and
  // ipaddr.js cost GET /me ~4% of its CPU). Held per socket, so it goes with the connection.
  const lastBySocket = new WeakMap<object, { forwardedFor: string | undefined; key: string }>();
  return (c) => {
    const socket = socketOf(c);
    const remoteAddress = socket?.remoteAddress || undefined;
    if (remoteAddress === undefined) return NO_SOCKET;
    const forwardedFor = c.req.header('x-forwarded-for');
    const last = lastBySocket.get(socket!);
    if (last !== undefined && last.forwardedFor === forwardedFor) return last.key;
    const key = resolve(remoteAddress, forwardedFor);
    lastBySocket.set(socket!, { forwardedFor, key });
    return key;
  };

  function resolve(remoteAddress: string, forwardedFor: string | undefined): string {
    // The Node request object proxy-addr reads: the peer's address and the header.
    const chain = proxyaddr.all({ socket: { remoteAddress }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } } as never, trust);
    // The first untrusted hop; a malformed entry there (written by a trusted proxy) counts as the
    // proxy's own request rather than as a key the client could vary at will.
    const candidate = chain[chain.length - 1];
    return limitKeyOf(ipaddr.isValid(candidate) ? candidate : chain[chain.length - 2] ?? remoteAddress);
  }
}

/** @hono/node-server puts the Node request in the `incoming` binding; app.fetch() callers may not. */
function socketOf(c: Context): { remoteAddress?: string } | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket;
}

/**
 * One key per client: an IPv4-mapped IPv6 address is its IPv4 address, and IPv6 counts per /64
 * (one subscriber's allocation, which a client could otherwise walk through address by address).
 */
export function limitKeyOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${(parsed as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16)).join(':')}::/64`;
}
