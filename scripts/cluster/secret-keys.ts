// The native cluster runs as production does, so its api and worker processes need
// WEBHOOK_SECRET_KEYS: the keys of the checkout's key file (.data/webhook-secret-keys, 0600, made
// on first use), which the cluster's processes read themselves before production required the
// variable, and which `npm start` on embedded defaults uses. docker-compose.yml takes them from .env.
import { fromRoot } from '../../src/paths.ts';
import { formatSecretKeys, KeyRing, keyFile } from '../../src/webhooks/message/secret-box.ts';

export const clusterSecretKeys = (): string => formatSecretKeys(new KeyRing(undefined, keyFile(fromRoot('.data'))).all());
