// Our API as it runs in production: createApp() served by @hono/node-server, like src/main.ts.
import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import { createApp } from '../../src/http/app.ts';
import { reportWhenListening } from './listen.ts';

const server = serve({ fetch: createApp().fetch, port: 0, hostname: '127.0.0.1' }) as Server;
reportWhenListening(server);
