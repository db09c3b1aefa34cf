// A broker destination as the subscription's row keeps it: the type, the settings in clear (jsonb
// `destination`), the credentials sealed (`destinationCredentials`, secret-box.ts: bound to the row
// and the column, so a copied value opens nowhere else). Only the repositories call these.
import { openSecret, sealSecret } from '../secret-box.ts';
import { BROKER_TYPES, type BrokerDestination, type BrokerType, type DestinationCredentials } from './settings.ts';

export interface StoredDestination {
  id: string;
  destinationType: string;
  destination: unknown;
  destinationCredentials: string | null;
}

export const isBrokerType = (type: string): type is BrokerType => (BROKER_TYPES as readonly string[]).includes(type);

/** The destination a sender needs, its credentials opened; null for https. */
export function openDestination(row: StoredDestination): BrokerDestination | null {
  if (!isBrokerType(row.destinationType)) return null;
  const credentials = row.destinationCredentials === null ? null : (JSON.parse(openSecret(row.destinationCredentials, { subscriptionId: row.id, column: 'destinationCredentials' })) as unknown);
  return { type: row.destinationType, settings: row.destination ?? {}, credentials } as BrokerDestination;
}

/** The sealed form of a destination's credentials for the subscription's row. */
export const sealCredentials = (subscriptionId: string, credentials: DestinationCredentials | null): string | null =>
  credentials === null ? null : sealSecret(JSON.stringify(credentials), { subscriptionId, column: 'destinationCredentials' });
