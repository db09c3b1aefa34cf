// Helpers of the limits tests (test/rate-limit, test/graphql, webhooks' caps): a real redis-server, signing in, many mutations in one request.
import { spawn } from 'node:child_process';
import type { createApp } from '../../src/http/app.ts';
import { provisioned } from '../support/tools.ts';
import { freePort } from '../support/http.ts';
import { api } from '../support/fixtures.ts';

type App = ReturnType<typeof createApp>;

/** A throwaway redis-server (the OS's package, provisioned by scripts/provision.sh) on a free loopback port, no persistence. */
export async function startRedisServer(): Promise<{ url: string; stop(): Promise<void> }> {
  const redisServer = provisioned('REDIS_SERVER_PATH');
  const port = await freePort();
  const child = spawn(redisServer, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.once('error', (err) => reject(new Error(`${redisServer} could not start: ${err.message}`)));
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve();
    });
  });
  child.removeAllListeners('exit');
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Signs the workspace's administrator in through GraphQL: the headers its later POSTs need. */
export async function signInAdmin(app: App, email: string, password = 'correct horse battery staple') {
  const res = await api('POST', '/graphql', { app, body: { query: 'mutation($email: String!, $password: String!) { signIn(email: $email, password: $password) { csrfToken } }', variables: { email, password } } });
  const cookie = res.headers.get('set-cookie')?.split(';')[0];
  if (res.status !== 200 || !cookie || !res.body.data) throw new Error(`sign-in failed: ${res.status} ${res.text}`);
  return { cookie, 'x-csrf-token': res.body.data.signIn.csrfToken as string };
}

/** createApiKey `count` times in one GraphQL request, as aliases k0, k1, … */
export function createKeysMutation(count: number, roleId: number) {
  const fields = Array.from(
    { length: count },
    (_, i) => `k${i}: createApiKey(input: { name: "field limit ${i}", roleId: ${roleId}, scopes: ["tickets:read"] }) { apiKey { id } }`,
  );
  return { query: `mutation { ${fields.join(' ')} }` };
}
