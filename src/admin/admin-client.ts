// The CLI's side of the admin channel (src/admin/admin-channel.ts): one request over the Unix
// socket DATA_DIR/admin.sock. Imports nothing that opens the database.
import http from 'node:http';
import path from 'node:path';
import type { Outcome } from './commands.ts';

export const adminSocket = (dataDir: string) => path.join(dataDir, 'admin.sock');

/** The running service's answer, or undefined when no service listens on the socket. */
export function askService(dataDir: string, route: '/cli' | '/migrate', body: unknown = {}): Promise<Outcome | undefined> {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath: adminSocket(dataDir), method: 'POST', path: route, agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        try {
          resolve(JSON.parse(text) as Outcome);
        } catch {
          reject(new Error(`The service answered on ${adminSocket(dataDir)} with something else than the admin channel's JSON (HTTP ${res.statusCode})`));
        }
      });
      res.on('error', reject);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      // No socket file, or one left by a service that is gone.
      if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED') resolve(undefined);
      else reject(err);
    });
    req.end(JSON.stringify(body));
  });
}
