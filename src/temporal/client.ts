import { Client, Connection } from '@temporalio/client';

/**
 * A Client whose connection opens on first use (so creating it never fails or blocks at
 * startup). Close it with `client.connection.close()`.
 */
export function connectTemporal(address: string, namespace: string): Client {
  return new Client({ connection: Connection.lazy({ address }), namespace });
}
