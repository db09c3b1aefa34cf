// Where webhooks may be sent (decisions.md, "URL rule"): https, port 443 or 8443, no userinfo,
// and only public unicast addresses. Checked when a subscription is saved (validateWebhookUrl)
// and again at every delivery on the addresses the connection really uses (guardedLookup), so a
// name that later resolves elsewhere (DNS rebinding) gains nothing.
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { config } from '../config.ts';
import type { FieldError } from '../errors/errors.ts';
import { logger } from '../logger.ts';

export interface UrlPolicyOptions {
  /** Lifts the address rule (development and tests only). Defaults to WEBHOOK_ALLOW_PRIVATE_TARGETS. */
  allowPrivateTargets?: boolean;
  /** Name resolution; defaults to the system resolver (dns.lookup, as connections use). */
  resolve?: (hostname: string) => Promise<string[]>;
}

const MAX_URL_LENGTH = 2048;
/** The URL parser drops the scheme's default port, so '' is 443. */
const ALLOWED_PORTS = new Set(['', '8443']);

// ipaddr.js calls everything it has no special name for 'unicast', including IPv6 space that
// IANA never allocated and the deprecated IPv4-compatible ::a.b.c.d: IPv6 must also be in
// 2000::/3, the only global unicast block.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

const RANGE_LABELS: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (CGNAT)',
  private: 'private',
  reserved: 'reserved or documentation',
  benchmarking: 'benchmarking',
  uniqueLocal: 'unique local (ULA)',
  ipv4Mapped: 'IPv4-mapped',
  rfc6145: 'IPv4-translated',
  rfc6052: 'NAT64',
  '6to4': '6to4',
  teredo: 'Teredo',
  deprecatedSiteLocal: 'site-local',
  discard: 'discard-only',
};

/** Why an IP address may not receive webhooks (a short label), or null for a public unicast address. */
export function addressRestriction(address: string): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address);
  } catch {
    return 'not an IP address';
  }
  const range = ip.range();
  if (range !== 'unicast') return RANGE_LABELS[range] ?? `special-purpose (${range})`;
  if (ip.kind() === 'ipv6' && !ip.match(GLOBAL_UNICAST_V6)) return 'not global unicast';
  return null;
}

let warnedPrivateTargets = false;
function allowsPrivateTargets(options: UrlPolicyOptions): boolean {
  const allow = options.allowPrivateTargets ?? config.webhooks.allowPrivateTargets;
  if (allow && !warnedPrivateTargets) {
    warnedPrivateTargets = true;
    logger.warn('WEBHOOK_ALLOW_PRIVATE_TARGETS is on: webhooks may target private and loopback addresses (development and tests only)');
  }
  return allow;
}

export type UrlTarget =
  | { ok: true; url: URL; host: { kind: 'ip'; address: string } | { kind: 'name'; name: string } }
  | { ok: false; message: string };

/**
 * Everything that can be judged without DNS: scheme, port, userinfo, and the address when the
 * host is an IP literal. The WHATWG parser has already turned every IPv4 spelling (decimal,
 * octal, hex, short forms, trailing dot, percent-encoding, full-width digits) into a.b.c.d.
 */
export function checkWebhookUrl(raw: string, options: UrlPolicyOptions = {}): UrlTarget {
  if (raw.length > MAX_URL_LENGTH) return { ok: false, message: `must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: 'must be an absolute URL' };
  }
  if (url.protocol !== 'https:') return { ok: false, message: 'must use https' };
  if (url.username || url.password) return { ok: false, message: 'must not contain a user name or password' };
  if (!ALLOWED_PORTS.has(url.port)) return { ok: false, message: 'port must be 443 or 8443' };

  const hostname = url.hostname;
  const host = hostname.startsWith('[')
    ? ({ kind: 'ip', address: hostname.slice(1, -1) } as const)
    : net.isIPv4(hostname)
      ? ({ kind: 'ip', address: hostname } as const)
      : ({ kind: 'name', name: hostname.replace(/\.$/, '') } as const);
  if (!allowsPrivateTargets(options)) {
    if (host.kind === 'ip') {
      const restriction = addressRestriction(host.address);
      if (restriction) return { ok: false, message: `must not point to a ${restriction} address (${host.address})` };
    } else if (host.name === 'localhost' || host.name.endsWith('.localhost')) {
      // RFC 6761: these names are loopback whatever a resolver says.
      return { ok: false, message: `must not point to a loopback address (${host.name})` };
    }
  }
  return { ok: true, url, host };
}

const systemResolve = async (hostname: string) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** How long saving waits for DNS before leaving the address check to delivery time. */
const RESOLVE_TIMEOUT_MS = 5_000;

/**
 * The save-time check: field errors (path `/url`) for a 422 `validation_failed`, empty when the
 * URL is acceptable. A host name must resolve only to allowed addresses; a name that does not
 * resolve (yet) is accepted, because every delivery checks the addresses it connects to anyway.
 */
export async function validateWebhookUrl(raw: string, options: UrlPolicyOptions = {}): Promise<FieldError[]> {
  const target = checkWebhookUrl(raw, options);
  if (!target.ok) return [{ path: '/url', message: target.message }];
  if (target.host.kind === 'ip' || allowsPrivateTargets(options)) return [];

  const name = target.host.name;
  let timer: NodeJS.Timeout | undefined;
  const addresses = await Promise.race([
    (options.resolve ?? systemResolve)(name).catch(() => [] as string[]),
    new Promise<string[]>((resolve) => (timer = setTimeout(() => resolve([]), RESOLVE_TIMEOUT_MS))),
  ]).finally(() => clearTimeout(timer));
  for (const address of addresses) {
    const restriction = addressRestriction(address);
    if (restriction) return [{ path: '/url', message: `must not point to a ${restriction} address (${name} resolves to ${address})` }];
  }
  return [];
}

/** The error a connection gets when its host resolves to a refused address. */
class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(hostname: string, address: string, restriction: string) {
    super(`${hostname} resolves to ${address}, a ${restriction} address: refused by the webhook URL policy`);
    this.name = 'BlockedAddressError';
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
export type SystemLookup = (hostname: string, options: dns.LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;

/**
 * A `lookup` for net/tls connections: resolves like dns.lookup, then refuses the connection
 * when any address is not allowed, so the socket can only open to addresses that were checked.
 * (Node does not call `lookup` for IP literals: checkWebhookUrl covers those.)
 */
export function guardedLookup(options: UrlPolicyOptions & { lookup?: SystemLookup } = {}): net.LookupFunction {
  const systemLookup: SystemLookup = options.lookup ?? dns.lookup;
  return (hostname, lookupOptions, callback: LookupCallback) => {
    systemLookup(hostname, { ...lookupOptions, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      if (!allowsPrivateTargets(options)) {
        for (const { address } of addresses) {
          const restriction = addressRestriction(address);
          if (restriction) return callback(new BlockedAddressError(hostname, address, restriction), '');
        }
      }
      if (lookupOptions.all) return callback(null, addresses);
      const [first] = addresses;
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      callback(null, first.address, first.family);
    });
  };
}
