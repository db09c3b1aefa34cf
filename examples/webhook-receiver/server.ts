// Runs the receiver on its own.
//   WEBHOOK_SECRET=whsec_… TLS_CERT_FILE=cert.pem TLS_KEY_FILE=key.pem npx tsx examples/webhook-receiver/server.ts
// With TLS_CERT_FILE and TLS_KEY_FILE it serves https (port 8443 by default): the service delivers
// only to https on port 443 or 8443. Without them it serves plain http (port 8080 by default), for
// running behind a proxy that terminates TLS.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { createWebhookHandler, memoryInbox, skipStale, type WebhookEvent } from './receiver.ts';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error("Set WEBHOOK_SECRET to the subscription's secret (whsec_…)");
  process.exit(1);
}
const certFile = process.env.TLS_CERT_FILE;
const keyFile = process.env.TLS_KEY_FILE;
const tls = certFile && keyFile ? { cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) } : undefined;
const host = process.env.HOST ?? '0.0.0.0';
const port = Number(process.env.PORT ?? (tls ? 8443 : 8080));

// Your integration's work. It runs after the answer, so it may take as long as it needs.
async function processEvent(event: WebhookEvent) {
  console.log(`processed ${event.type} ${event.id}`);
}

// A delivery older than what was already processed for its ticket is dropped (skipStale).
const handler = createWebhookHandler({ secret, inbox: memoryInbox(skipStale(processEvent)) });
const server = tls ? https.createServer(tls, handler) : http.createServer(handler);
server.listen(port, host, () => console.log(`listening on ${tls ? 'https' : 'http'}://${host}:${port}`));
