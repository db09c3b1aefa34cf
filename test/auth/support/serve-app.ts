// A second API instance for the revocation tests: the HTTP app alone on a free loopback port,
// against the DATABASE_URL it is given. Prints `listening <port>` once it accepts connections.
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createApp } from '../../../src/http/app.ts';

const server = serve({ fetch: createApp().fetch, port: 0, hostname: '127.0.0.1' });
server.once('listening', () => console.log(`listening ${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => process.exit(0));
