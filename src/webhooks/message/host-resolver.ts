// Webhook host names, resolved off libuv's thread pool. dns.lookup runs getaddrinfo on that pool
// (4 threads, shared with argon2 sign-ins and file reads), and a lookup of a name on a slow DNS
// server keeps its thread however soon its caller gives up: one workspace pointing webhooks at its
// own slow names stalled every tenant's deliveries and every sign-in. Here c-ares (dns.Resolver:
// its own sockets on the event loop) asks for A and AAAA with one try of DNS_TIMEOUT_MS, against
// WEBHOOK_DNS_SERVERS or the system's servers, and each workspace has at most
// RESOLUTIONS_PER_WORKSPACE names in flight (the same name asked twice at once is asked once).
// c-ares reads no /etc/hosts: `localhost` and `*.localhost` are loopback by RFC 6761, IP literals
// are themselves, and every other name is the DNS's answer.
import dns from 'node:dns';
import net from 'node:net';
import { config } from '../../config.ts';
import { onFirstUse, forget } from '../../lazy.ts';
import { onResetForTests } from '../../reset-for-tests.ts';
import { DNS_TIMEOUT_MS } from './constants.ts';

/** A workspace's host names being resolved at once (others wait up to DNS_TIMEOUT_MS for a place): a workspace with a slow DNS holds this many c-ares queries, nothing shared. */
export const RESOLUTIONS_PER_WORKSPACE = 8;
/** A workspace's resolutions waiting for a place at most; beyond it one fails at once. */
const WAITING_PER_WORKSPACE = 256;

/** The workspace has as many resolutions in flight and waiting as it may, or none got a place in time. */
export class ResolutionsBusyError extends Error {
  readonly code = 'ERESOLVEBUSY';
  constructor() {
    super(`the workspace has ${RESOLUTIONS_PER_WORKSPACE} webhook host names being resolved already`);
    this.name = 'ResolutionsBusyError';
  }
}

export interface HostResolverOptions {
  /** DNS servers (`ip`, `ip:port`, `[ipv6]:port`); default: the system's (/etc/resolv.conf). */
  servers?: string[];
  timeoutMs?: number;
  perWorkspace?: number;
  waitingPerWorkspace?: number;
}

export interface HostResolver {
  /** The name's addresses (IPv4 first); rejects when it does not resolve, or with ResolutionsBusyError. */
  resolve(hostname: string, workspaceId: number): Promise<string[]>;
  /** Resolutions in flight per workspace (tests, and to see that they end). */
  inFlight(workspaceId: number): number;
  close(): void;
}

interface Lane {
  running: number;
  waiting: (() => void)[];
}

export function createHostResolver(options: HostResolverOptions = {}): HostResolver {
  const timeoutMs = options.timeoutMs ?? DNS_TIMEOUT_MS;
  const width = options.perWorkspace ?? RESOLUTIONS_PER_WORKSPACE;
  const maxWaiting = options.waitingPerWorkspace ?? WAITING_PER_WORKSPACE;
  const resolver = new dns.promises.Resolver({ timeout: timeoutMs, tries: 1 });
  if (options.servers?.length) resolver.setServers(options.servers);
  const lanes = new Map<number, Lane>();
  const asking = new Map<string, Promise<string[]>>();

  /** A place in the workspace's lane: at once while it has fewer than `width` running, else the next one freed, within the time-out. */
  async function enter(workspaceId: number): Promise<Lane> {
    let lane = lanes.get(workspaceId);
    if (!lane) lanes.set(workspaceId, (lane = { running: 0, waiting: [] }));
    if (lane.running < width) {
      lane.running++;
      return lane;
    }
    if (lane.waiting.length >= maxWaiting) throw new ResolutionsBusyError();
    const waiting = lane.waiting;
    await new Promise<void>((resolve, reject) => {
      const turn = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(turn), 1);
        reject(new ResolutionsBusyError());
      }, timeoutMs);
      waiting.push(turn);
    });
    return lane; // the place was handed over by leave(): running stays as it was
  }

  function leave(workspaceId: number, lane: Lane) {
    const next = lane.waiting.shift();
    if (next) return next();
    lane.running--;
    if (lane.running === 0) lanes.delete(workspaceId);
  }

  async function query(hostname: string): Promise<string[]> {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
    if (addresses.length) return addresses;
    throw v4.status === 'rejected' ? v4.reason : Object.assign(new Error(`${hostname} has no address`), { code: 'ENODATA' });
  }

  async function resolve(hostname: string, workspaceId: number): Promise<string[]> {
    const name = hostname.toLowerCase().replace(/\.+$/, '');
    if (net.isIP(name)) return [name];
    if (name === 'localhost' || name.endsWith('.localhost')) return ['127.0.0.1', '::1'];
    const key = `${workspaceId}\u0000${name}`;
    const pending = asking.get(key);
    if (pending) return pending;
    const asked = (async () => {
      const lane = await enter(workspaceId);
      try {
        return await query(name);
      } finally {
        leave(workspaceId, lane);
      }
    })().finally(() => asking.delete(key));
    asking.set(key, asked);
    return asked;
  }

  return {
    resolve,
    inFlight: (workspaceId) => lanes.get(workspaceId)?.running ?? 0,
    close: () => resolver.cancel(),
  };
}

/** The process's resolver, on WEBHOOK_DNS_SERVERS (or the system's servers). */
export const webhookHosts: HostResolver = onFirstUse(() => createHostResolver({ servers: config.webhooks.dnsServers }));
onResetForTests(() => forget(webhookHosts)?.close());
