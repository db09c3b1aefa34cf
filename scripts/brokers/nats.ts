// NATS 2.9 from Debian's package with JetStream, its store in the broker's folder (so a restart
// keeps streams and messages), listening on loopback only, no monitoring port.
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { provisionedPath } from '../provision-env.ts';
import type { BrokerKind } from './broker-process.ts';

export interface NatsAddress {
  /** 127.0.0.1:PORT, as `connect({ servers })` takes it */
  servers: string;
}

export const nats: BrokerKind<NatsAddress> = {
  ports: 1,
  prepare() {},
  launches: (dir, [port]) => [{ command: provisionedPath('NATS_SERVER_PATH'), args: ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', path.join(dir, 'jetstream')] }],
  address: ([port]) => ({ servers: `127.0.0.1:${port}` }),
  // Ready when JetStream answers, not merely the port.
  async probe({ servers }) {
    const connection = await connect({ servers, reconnect: false, timeout: 2000 });
    try {
      await (await jetstreamManager(connection)).getAccountInfo();
    } finally {
      await connection.close();
    }
  },
};
