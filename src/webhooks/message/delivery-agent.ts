// The delivery connections of a worker: kept alive for reuse, within bounds. Without them, a tenant
// moving its URL across wildcard subdomains whose receivers never close left one idle connection
// per name, each a file descriptor, until the worker hit EMFILE for everyone. An idle connection
// closes after `idleMs`; at most `perHost` go to one receiver for one workspace (more of its
// requests wait for one of them; connections are pooled per workspace, so a tenant whose requests
// hang on a receiver many tenants share, such as a SaaS's webhook host, holds only its own) and
// `total` to all together. At the total, a request for a receiver without an idle connection of
// its own closes one idle connection elsewhere rather than waiting for one to time out.
import https from 'node:https';
import type net from 'node:net';

export interface AgentBounds {
  /** Connections open at once to every receiver together, busy and idle. */
  total: number;
  /** Connections open at once to one receiver (host, port and TLS options) for one workspace. */
  perHost: number;
  /** A kept-alive connection closes after this long idle (a receiver's shorter Keep-Alive timeout wins). */
  idleMs: number;
}


/** A request's options: `workspaceId` names its pool (webhook-sender.ts passes it). */
export type DeliveryRequestOptions = https.RequestOptions & { workspaceId?: number };

export class DeliveryAgent extends https.Agent {
  readonly bounds: AgentBounds;

  constructor(bounds: AgentBounds, options: https.AgentOptions = {}) {
    super({ ...options, keepAlive: true, timeout: bounds.idleMs, maxSockets: bounds.perHost, maxFreeSockets: bounds.perHost, maxTotalSockets: bounds.total });
    this.bounds = bounds;
  }

  /** The pool of a request: the receiver (host, port, TLS options) and the workspace. */
  getName(options?: DeliveryRequestOptions): string {
    const receiver = super.getName(options);
    return options?.workspaceId === undefined ? receiver : `${receiver}:workspace=${options.workspaceId}`;
  }

  /** Connections open now, busy and idle. */
  get open(): number {
    const count = (pools: NodeJS.ReadOnlyDict<unknown[]>) => Object.values(pools).reduce((n, list) => n + (list?.length ?? 0), 0);
    return count(this.sockets) + count(this.freeSockets);
  }

  // Node's Agent calls this for every request (not in its typings). At the total, an idle
  // connection to another receiver is closed first; the request goes on once it has closed (Node
  // counts it out then).
  addRequest(req: unknown, options: DeliveryRequestOptions): void {
    const add = () => (https.Agent.prototype as unknown as { addRequest(req: unknown, options: DeliveryRequestOptions): void }).addRequest.call(this, req, options);
    if (this.open >= this.bounds.total && !this.idleFor(options)) {
      const idle = this.anyIdle();
      if (idle) {
        idle.once('close', add);
        idle.destroy();
        return;
      }
    }
    add();
  }

  private idleFor(options: DeliveryRequestOptions): boolean {
    const name = this.getName({ ...options, ...(this as unknown as { options: https.AgentOptions }).options });
    return (this.freeSockets[name] ?? []).some((s) => !s.destroyed);
  }

  private anyIdle(): net.Socket | undefined {
    for (const list of Object.values(this.freeSockets)) {
      const socket = list?.find((s) => !s.destroyed);
      if (socket) return socket;
    }
    return undefined;
  }
}
