// The chaos test's environment, set before anything reads it: src/config.ts parses process.env
// once, at its first import (the cluster's probes import it too), so main.ts imports this first.
// The app processes the cluster starts inherit it (scripts/cluster/services.ts) on top of theirs.
import { fromRoot } from '../../src/paths.ts';
import { databaseUrl, nativeEndpoints } from '../cluster/topology.ts';

export const caFile = fromRoot('.data', 'cluster', 'chaos', 'ca.pem');

/** What the api and worker processes need to deliver to the receivers: loopback targets allowed, the CA trusted. */
export const chaosAppEnv = () => ({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', NODE_EXTRA_CA_CERTS: caFile });

Object.assign(process.env, chaosAppEnv(), {
  // This process reads the cluster's database (its workspace, the checks at the end).
  DATABASE_URL: databaseUrl(nativeEndpoints),
  // The API key made here gets no rate limit worth the name: the load is the point.
  DEFAULT_REQUESTS_PER_MINUTE: '1000000',
});
