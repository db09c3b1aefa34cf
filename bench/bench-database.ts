// The PostgreSQL a benchmark runs on: `url` when given (DATABASE_URL, or the native cluster's), else
// a throwaway cluster started here (the caller stops it), and the server's version for the report.
import pg from 'pg';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../scripts/throwaway-postgres.ts';

export interface BenchDatabase {
  url: string;
  /** How the report names it. */
  note: string;
  version: string;
  /** Started here: stop it when the run ends. */
  cluster?: ThrowawayPostgres;
}

export async function benchDatabase(log: (message: string) => void, given?: { url: string; note: string }): Promise<BenchDatabase> {
  let cluster: ThrowawayPostgres | undefined;
  let { url, note } = given ?? { url: process.env.DATABASE_URL ?? '', note: 'PostgreSQL from DATABASE_URL' };
  if (!url) {
    log('Starting a throwaway PostgreSQL cluster…');
    cluster = await startThrowawayPostgres({ database: 'bench' });
    url = cluster.url;
    note = 'throwaway PostgreSQL cluster (initdb, fsync=off) on loopback';
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const version = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version;
    return { url, note, version, cluster };
  } finally {
    await client.end();
  }
}
