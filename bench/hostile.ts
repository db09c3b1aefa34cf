// The hostile requests of issue 10, for bench/memory.ts: each is sent with the API key (so the
// cheap refusals of an anonymous caller do not hide the cost) and its answer's status recorded.
// The GraphQL limits that refuse most of these cheaply are separate work; until they are in,
// some of these cost the API a great deal of memory, which is what the benchmark measures.

export interface HostileRequest {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  /** A function, so a 20 MB body exists only while it is sent. */
  body?: () => string;
  /** How many are sent at once. */
  concurrency: number;
}

const gql = (query: string) => () => JSON.stringify({ query });

function aliasedIntrospection(bytes: number): string {
  const one = (i: number) => `i${i}: __schema { types { name kind fields { name type { name kind ofType { name kind } } } } } `;
  let query = '{ ';
  for (let i = 0; query.length < bytes; i++) query += one(i);
  return `${query}}`;
}

const aliases = (count: number, field: (i: number) => string) => `{ ${Array.from({ length: count }, (_, i) => field(i)).join(' ')} }`;

function fragments(count: number): string {
  const defs = Array.from({ length: count }, (_, i) => `fragment F${i} on Query { __typename }`).join(' ');
  return `{ ${Array.from({ length: count }, (_, i) => `...F${i}`).join(' ')} } ${defs}`;
}

const TICKET_PAGE = 'tickets(first: 100) { edges { node { id subject description } } }';

export const HOSTILE_REQUESTS: HostileRequest[] = [
  { name: '8 KB of aliased introspection', method: 'POST', path: '/graphql', body: gql(aliasedIntrospection(8 * 1024)), concurrency: 1 },
  { name: '20,000 __typename aliases', method: 'POST', path: '/graphql', body: gql(aliases(20_000, (i) => `a${i}: __typename`)), concurrency: 1 },
  { name: '5,000 fragments', method: 'POST', path: '/graphql', body: gql(fragments(5_000)), concurrency: 1 },
  { name: '20 MB body to /graphql', method: 'POST', path: '/graphql', body: () => JSON.stringify({ query: '{ __typename }', variables: { pad: 'p'.repeat(20 * 1024 * 1024) } }), concurrency: 1 },
  { name: 'JSON nested 400,000 deep', method: 'POST', path: '/graphql', body: () => `{"query":"{ __typename }","variables":{"a":${'['.repeat(400_000)}${']'.repeat(400_000)}}}`, concurrency: 1 },
  { name: 'two aliases of tickets(first:100) over 60 KB descriptions', method: 'POST', path: '/graphql', body: gql(`{ a: ${TICKET_PAGE} b: ${TICKET_PAGE} }`), concurrency: 1 },
  { name: 'eight concurrent GET /kb/articles?limit=100 over 90 KB articles', method: 'GET', path: '/public/v1/kb/articles?limit=100', concurrency: 8 },
  { name: '1,000 aliases of a ticket page', method: 'POST', path: '/graphql', body: gql(aliases(1_000, (i) => `t${i}: ${TICKET_PAGE}`)), concurrency: 1 },
];

export type StatusClass = '2xx' | '3xx' | '4xx' | '5xx' | 'no answer';

/** Sends one request of the set (its `concurrency` copies at once); the status class of each answer. */
export async function sendHostile(origin: string, apiKey: string, request: HostileRequest, timeoutMs = 60_000): Promise<StatusClass[]> {
  return Promise.all(
    Array.from({ length: request.concurrency }, async (): Promise<StatusClass> => {
      try {
        const res = await fetch(origin + request.path, {
          method: request.method,
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: request.body?.(),
          signal: AbortSignal.timeout(timeoutMs),
        });
        await res.arrayBuffer();
        return `${String(res.status)[0]}xx` as StatusClass;
      } catch {
        return 'no answer';
      }
    }),
  );
}
