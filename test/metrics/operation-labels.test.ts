// The GraphQL metric's labels are a bounded set: the route table's operations and the settings
// UI's. This keeps the server's copy of the UI's names equal to the UI's own operations.
import { describe, expect, it } from 'vitest';
import * as ui from '../../web/src/api/operations.ts';
import { knownOperationNames, UI_OPERATION_NAMES } from '../../src/metrics/graphql-metrics.ts';
import { routes } from '../../src/api/routes.ts';

const KNOWN_OPERATION_NAMES = knownOperationNames(routes.map((r) => r.operation));

const declared = (doc: string) => [...doc.matchAll(/\b(?:query|mutation)\s+([_A-Za-z][_0-9A-Za-z]*)/g)].map((m) => m[1]);

describe('GraphQL operation labels', () => {
  it('name every operation of the settings UI, and no other', () => {
    // The UI's documents are generated TypedDocumentStrings (String objects): their text names the operation.
    const fromUi = Object.values(ui).flatMap((v) => (v instanceof String ? declared(v.toString()) : []));
    expect(fromUi.length).toBe(UI_OPERATION_NAMES.length);
    expect(new Set(UI_OPERATION_NAMES)).toEqual(new Set(fromUi));
  });

  it('name every operation of the route table', () => {
    for (const r of routes) expect(KNOWN_OPERATION_NAMES.has(declared(r.operation)[0]), r.operationId).toBe(true);
    expect(KNOWN_OPERATION_NAMES.size).toBeLessThanOrEqual(routes.length + UI_OPERATION_NAMES.length);
  });
});
