// Fair turns at PostgreSQL's connection pool, as fair-turns.ts gives them at PGlite's one
// connection. `pg.Pool` hands a freed connection to whoever asked first, so while one workspace's
// import and its thousands of deliveries kept every pooled connection busy, with more asking, a
// request of another workspace waited behind all of them. Here a connection is asked for in the
// lane of the work that asks (fair-turns.ts: a workspace's requests and delivery steps, the bulk
// jobs, the service's own work), and when none is free the next one freed goes to the waiting
// lanes in turn. While connections are free, nothing waits and nothing changes.
//
// Every way into the pool goes through `connect`: Prisma's adapter calls it for a transaction and,
// through `pool.query`, for each statement; `read` and `withSession` too. A checked-out client's
// `release` gives the turn back.
import pg from 'pg';
import { dbPoolConnectWait } from '../metrics/metrics.ts';
import { currentDatabaseLane, FairTurns, BULK_JOBS_LANE, SERVICE_LANE } from './fair-turns.ts';

/** The lane's kind, a fixed set (a metric label never names a workspace). */
const laneKind = (lane: string) =>
  lane.startsWith('workspace:') ? 'workspace' : lane === SERVICE_LANE ? 'service' : lane === BULK_JOBS_LANE ? 'bulk_jobs' : 'request';

type Connected = (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;

export class FairPool extends pg.Pool {
  private readonly turns: FairTurns;

  constructor(config: pg.PoolConfig & { max: number }) {
    super(config);
    this.turns = new FairTurns(config.max);
  }

  connect(): Promise<pg.PoolClient>;
  connect(callback: Connected): void;
  connect(callback?: Connected): Promise<pg.PoolClient> | void {
    const lane = currentDatabaseLane();
    const asked = performance.now();
    const connected = this.turns.take(lane).then(async (giveBack) => {
      let client: pg.PoolClient;
      try {
        client = await super.connect();
      } catch (err) {
        giveBack();
        throw err;
      }
      dbPoolConnectWait.observe({ lane: laneKind(lane) }, (performance.now() - asked) / 1000);
      // pg sets `release` on each checkout; the turn goes back once the client is back in the pool.
      const release = client.release.bind(client);
      client.release = (err?: Error | boolean) => {
        try {
          return release(err);
        } finally {
          giveBack();
        }
      };
      return client;
    });
    if (!callback) return connected;
    connected.then(
      (client) => callback(undefined, client, (err) => client.release(err as Error | boolean | undefined)),
      (err: Error) => callback(err, undefined, () => undefined),
    );
  }
}
