// The chaos test's broker destination: a NATS JetStream server of its own (scripts/throwaway-brokers.ts)
// with a stream for the subscription's subject, read back as the HTTPS receivers count arrivals:
// one entry per webhook-id, with how often it came (JetStream drops a duplicate within its window,
// by Nats-Msg-Id, so what is counted here is what a consumer would see).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ownBroker } from '../throwaway-brokers.ts';
import { provisionForTests } from '../provision-env.ts';
import { natsPlace } from '../../test/webhooks/destinations/readers.ts';
import type { Arrival } from '../../bench/webhook-receivers.ts';

export interface BrokerReceiver {
  origin: string;
  /** The REST `destination` of its subscription. */
  destination: Record<string, unknown>;
  arrivals: Map<string, Arrival>;
  /** Reads what the stream has received since the last call into `arrivals`. */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

export async function startBrokerReceiver(): Promise<BrokerReceiver> {
  // The broker's program, as the tests have it (scripts/provision.sh --for test).
  provisionForTests();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chaos-brokers-'));
  const nats = await ownBroker(dir, 'nats');
  const place = await natsPlace(nats.address);
  const arrivals = new Map<string, Arrival>();
  let seen = 0;
  return {
    origin: `nats://${nats.address.servers}/${String(place.destination.subject)}`,
    destination: place.destination,
    arrivals,
    async refresh() {
      const got = await place.read();
      for (const m of got.slice(seen)) {
        const id = m.headers['webhook-id'];
        const arrival = arrivals.get(id);
        if (arrival) arrival.count += 1;
        else arrivals.set(id, { firstAt: Date.now(), occurredAt: Date.parse((JSON.parse(m.body) as { occurredAt: string }).occurredAt), count: 1 });
      }
      seen = got.length;
    },
    async close() {
      await place.close();
      await nats.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
