// The machine's ceiling: a bare node:http server answering one primary-key query through `pg`
// per request (the API key's row), with the same pool size as the app (10).
import http from 'node:http';
import pg from 'pg';
import { fixtureFromArgv, reportWhenListening } from './listen.ts';

const { apiKeyId } = fixtureFromArgv();
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

const server = http.createServer((_req, res) => {
  pool.query({ name: 'key-by-id', text: 'SELECT * FROM "ApiKey" WHERE id = $1', values: [apiKeyId] }).then(
    (r) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(r.rows[0]));
    },
    (err: Error) => {
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(err.message);
    },
  );
});
server.listen(0, '127.0.0.1');
reportWhenListening(server);
