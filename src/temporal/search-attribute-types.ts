// The delivery workflows' search attributes and their types: registered on every dev server we
// start (dev-server.ts) and on the production topology's server (scripts/cluster/topology.ts).
// A module of its own, free of src/config.ts, so that scripts can read it before the environment is final.

type SearchAttributeTypeName = 'Text' | 'Keyword' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';

/** Search attributes of webhook delivery workflows. */
export const deliverySearchAttributes = {
  EventId: 'Keyword',
  SubscriptionId: 'Keyword',
  EventType: 'Keyword',
  WorkspaceId: 'Keyword',
} as const satisfies Record<string, SearchAttributeTypeName>;

export type { SearchAttributeTypeName };
