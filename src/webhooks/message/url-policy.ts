// Where webhooks may be sent (docs/integrators/webhooks.md, "Subscriptions"): https, port 443 or 8443, no userinfo,
// and only public unicast addresses. Checked when a subscription is saved (validateWebhookUrl)
// and again at every delivery on the addresses the connection really uses (guardedLookup), so a
// name that later resolves elsewhere (DNS rebinding) gains nothing. Names are resolved by
// host-resolver.ts (c-ares, bounded per workspace), never on libuv's thread pool.
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { config } from '../../config.ts';
import { AppError, type FieldError } from '../../errors/errors.ts';
import { logger } from '../../logger.ts';
import { DNS_TIMEOUT_MS } from './constants.ts';
import { ResolutionsBusyError, webhookHosts } from './host-resolver.ts';

/** A host name's addresses; rejects when it does not resolve. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

export interface UrlPolicyOptions {
  /** Lifts the address rule (development and tests only). Defaults to WEBHOOK_ALLOW_PRIVATE_TARGETS. */
  allowPrivateTargets?: boolean;
  /** Name resolution; defaults to the webhook host resolver (host-resolver.ts) in `workspaceId`'s lane. */
  resolve?: ResolveHost;
  /** Whose resolutions in flight it counts against (host-resolver.ts); 0 when none is named. */
  workspaceId?: number;
}

/** The resolver of these options: theirs, or the process's webhook host resolver in the workspace's lane. */
const resolverOf = (options: UrlPolicyOptions): ResolveHost => options.resolve ?? ((name) => webhookHosts.resolve(name, options.workspaceId ?? 0));

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

type UrlTarget =
  | { ok: true; url: URL; host: { kind: 'ip'; address: string } | { kind: 'name'; name: string } }
  | { ok: false; message: string };

/** What the OpenAPI document says of `url`; the messages below name the same rule. */
export const URL_RULE_NOTE =
  'URL rule: `https://` and a host, port 443 or 8443, no user name or password, no control characters or spaces, and only public unicast addresses: a host name must resolve when saved, and only to such addresses.';

/**
 * The shape the rule needs, as a JSON Schema pattern (no flags, so the scheme's case is spelt
 * out): `https://`, a non-empty authority, then no control characters or spaces anywhere. The
 * WHATWG parser would quietly drop TAB, CR and LF and accept `https:host` or `https:///host`.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it refuses
export const WEBHOOK_URL_PATTERN = /^[Hh][Tt][Tt][Pp][Ss]:\/\/[^/?#\\\u0000-\u0020\u007F]+(?:[/?#][^\u0000-\u0020\u007F]*)?$/;

const refuse = (message: string) => ({ ok: false, message }) as const;
/**
 * The one refusal for a host name judged by its addresses: the same whether the name does not
 * resolve or resolves to a refused address, so that saving a URL tells nobody which internal
 * names exist.
 */
const HOST_NAME_RULE = 'the host name must resolve, and only to public addresses';
/** Field errors name the rule they report. */
const RULE = 'breaks the URL rule: ';

/**
 * Everything that can be judged without DNS: the written form, scheme, port, userinfo, and the
 * address when the host is an IP literal. The WHATWG parser has already turned every IPv4
 * spelling (decimal, octal, hex, short forms, trailing dot, percent-encoding, full-width digits)
 * into a.b.c.d; trailing dots of a name are removed here. `url` is the normalised URL, the
 * one to store and to send to.
 */
export function checkWebhookUrl(raw: string, options: UrlPolicyOptions = {}): UrlTarget {
  if (raw.length > MAX_URL_LENGTH) return refuse(`must be at most ${MAX_URL_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex -- control characters are what it refuses
  if (/[\u0000-\u0020\u007F]/.test(raw)) return refuse('must not contain spaces or control characters (tab, line feed and carriage return included)');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('must be an absolute URL');
  }
  if (url.protocol !== 'https:') return refuse('must use https');
  if (!/^https:\/\/[^/\\?#]/i.test(raw)) return refuse('must be written https://<host>/… (the host is missing)');
  if (url.username || url.password) return refuse('must not contain a user name or password');
  if (!ALLOWED_PORTS.has(url.port)) return refuse('port must be 443 or 8443');

  if (!url.hostname.startsWith('[') && !net.isIPv4(url.hostname)) {
    const name = url.hostname.replace(/\.+$/, '');
    if (!name) return refuse('the host is missing');
    url.hostname = name;
  }
  const hostname = url.hostname;
  const host = hostname.startsWith('[')
    ? ({ kind: 'ip', address: hostname.slice(1, -1) } as const)
    : net.isIPv4(hostname)
      ? ({ kind: 'ip', address: hostname } as const)
      : ({ kind: 'name', name: hostname } as const);
  if (!allowsPrivateTargets(options)) {
    if (host.kind === 'ip') {
      const restriction = addressRestriction(host.address);
      if (restriction) return refuse(`must not point to a ${restriction} address`);
    } else if (host.name === 'localhost' || host.name.endsWith('.localhost')) {
      // RFC 6761: these names are loopback whatever a resolver says. Worded as for any other name
      // refused by what it resolves to (validateWebhookUrl).
      return refuse(HOST_NAME_RULE);
    }
  }
  return { ok: true, url, host };
}

/**
 * The save-time check: field errors (path `/url`) for a 422 `validation_failed`, empty when the
 * URL is acceptable. A host name must resolve, and only to allowed addresses (every delivery
 * checks the addresses it connects to again). A name that does not resolve (or not within
 * DNS_TIMEOUT_MS) gets the same refusal as one that resolves to a private address: two answers
 * would let callers map internal names; neither says what the name resolved to. A workspace with
 * as many names being resolved as it may (a slow DNS of its own) gets 429 `rate_limited`.
 */
export async function validateWebhookUrl(raw: string, options: UrlPolicyOptions = {}): Promise<FieldError[]> {
  const target = checkWebhookUrl(raw, options);
  if (!target.ok) return [{ path: '/url', message: RULE + target.message }];
  const refused = await hostRefusal(target.host, options);
  return refused ? [{ path: '/url', message: RULE + refused }] : [];
}

/**
 * Why a destination's host may not be used (the same rule as a webhook URL's host, for broker
 * addresses too: docs/integrators/destinations.md), or null. A name must resolve, and only to
 * allowed addresses; the refusal is the same either way.
 */
export async function hostRefusal(host: { kind: 'ip'; address: string } | { kind: 'name'; name: string }, options: UrlPolicyOptions = {}): Promise<string | null> {
  if (allowsPrivateTargets(options)) return null;
  if (host.kind === 'ip') {
    const restriction = addressRestriction(host.address);
    return restriction ? `must not point to a ${restriction} address` : null;
  }
  if (host.name === 'localhost' || host.name.endsWith('.localhost')) return HOST_NAME_RULE;
  let addresses: string[];
  try {
    addresses = await resolverOf(options)(host.name);
  } catch (err) {
    if (err instanceof ResolutionsBusyError) {
      throw new AppError('rate_limited', `${err.message}: retry when they have finished`, { headers: { 'Retry-After': String(Math.ceil(DNS_TIMEOUT_MS / 1000)) } });
    }
    addresses = [];
  }
  if (!addresses.length || addresses.some((address) => addressRestriction(address) !== null)) return HOST_NAME_RULE;
  return null;
}

/** Whether the address rule is lifted (WEBHOOK_ALLOW_PRIVATE_TARGETS, development and tests). */
export const privateTargetsAllowed = (options: UrlPolicyOptions = {}) => allowsPrivateTargets(options);

/** The normalised URL (WHATWG serialisation, trailing dots of the host removed) when it passes the checks that need no DNS. */
export function normaliseWebhookUrl(raw: string, options: UrlPolicyOptions = {}): { ok: true; url: string } | { ok: false; message: string } {
  const target = checkWebhookUrl(raw, options);
  return target.ok ? { ok: true, url: target.url.href } : { ok: false, message: RULE + target.message };
}

/**
 * The error a connection gets when its host does not resolve or resolves to a refused address:
 * one message for both, since it reaches the delivery log, which integrators read, and two would
 * tell whether an internal name (a CNAME to db.corp.internal) exists. The operator's log has the detail.
 */
class UnreachableHostError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(hostname: string) {
    super(`${hostname} resolves to an address the webhook URL rule refuses, or does not resolve`);
    this.name = 'UnreachableHostError';
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | { address: string; family: number }[], family?: number) => void;

/**
 * A `lookup` for net/tls connections: resolves with the webhook host resolver (never dns.lookup,
 * see host-resolver.ts), then refuses the connection when any address is not allowed, so the
 * socket can only open to addresses that were checked. (Node does not call `lookup` for IP
 * literals: checkWebhookUrl covers those.)
 */
export function guardedLookup(options: UrlPolicyOptions = {}): net.LookupFunction {
  const resolve = resolverOf(options);
  return (hostname, lookupOptions, callback: LookupCallback) => {
    resolve(hostname).then(
      (found) => {
        if (!allowsPrivateTargets(options)) {
          for (const address of found) {
            const restriction = addressRestriction(address);
            if (restriction) {
              logger.warn({ hostname, address, restriction }, 'webhook connection refused: the host resolves to a refused address');
              return callback(new UnreachableHostError(hostname), '');
            }
          }
        }
        const family = lookupOptions.family === 4 || lookupOptions.family === 'IPv4' ? 4 : lookupOptions.family === 6 || lookupOptions.family === 'IPv6' ? 6 : 0;
        const addresses = found.map((address) => ({ address, family: net.isIP(address) })).filter((a) => !family || a.family === family);
        if (lookupOptions.all) return callback(null, addresses);
        const [first] = addresses;
        if (!first) return callback(new UnreachableHostError(hostname), '');
        callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => {
        if (err instanceof ResolutionsBusyError) return callback(err, '');
        logger.warn({ hostname, err: { code: err.code, message: err.message } }, 'webhook connection refused: the host does not resolve');
        callback(new UnreachableHostError(hostname), '');
      },
    );
  };
}
