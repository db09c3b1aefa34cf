// What a delivery waits for is one list (src/webhooks/delivery/wait.ts), wherever it is shown: the
// GraphQL enums of the delivery log's `waited.reason` and of the backlog's `waitingFor`, and the
// REST description of the delivery log, which once left `workspace_cap` out.
import { describe, expect, it } from 'vitest';
import { GraphQLEnumType } from 'graphql';
import { schema } from '../../../src/api/schema.ts';
import { buildOpenApiDocument } from '../../../src/api/openapi.ts';
import { BACKLOG_WAITS, WAIT_REASONS } from '../../../src/webhooks/delivery/wait.ts';

const enumValues = (name: string) => (schema.getType(name) as GraphQLEnumType).getValues().map((v) => v.name).sort();

describe('wait reasons', () => {
  it('are the same list in the GraphQL enums', () => {
    expect(enumValues('WebhookWaitReason')).toEqual([...WAIT_REASONS].sort());
    expect(enumValues('WebhookBacklogWait')).toEqual([...BACKLOG_WAITS].sort());
  });

  it('are all named in the REST description of the delivery log', () => {
    const description: string = (buildOpenApiDocument().paths as Record<string, { get: { description: string } }>)['/webhooks/{id}/deliveries'].get.description;
    for (const reason of WAIT_REASONS) expect(description).toContain(`\`${reason}\``);
  });
});
