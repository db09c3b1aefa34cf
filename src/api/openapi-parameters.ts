// The parameters of each operation of the OpenAPI document: path and query from the route's zod
// schemas, and the `If-Match` and `Idempotency-Key` headers where the route takes them.
import type { RouteDef } from '../rest/route.ts';
import { IF_MATCH_PATTERN, MAX_IF_MATCH_CHARS, MAX_IF_MATCH_TAGS } from '../rest/conditional.ts';
import { toJsonSchema, type JsonSchema } from './openapi-schemas.ts';

export function parameters(route: RouteDef) {
  const out: unknown[] = [];
  for (const [where, obj] of [['path', route.params], ['query', route.query]] as const) {
    if (!obj) continue;
    const js = toJsonSchema(obj) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, s] of Object.entries(js.properties ?? {})) {
      const { description, ...rest } = s as { description?: string };
      out.push({ name, in: where, required: where === 'path' || (js.required ?? []).includes(name), schema: rest, ...(description ? { description } : {}) });
    }
  }
  if (route.ifMatch) {
    out.push({
      name: 'If-Match',
      in: 'header',
      required: false,
      description:
        (route.method === 'GET' ? 'Answer only if the record is still at this version' : 'Make the change only if the record is still at this version') +
        ': its `ETag`, `"<version>"` (RFC 9110 conditional request; ' +
        `a list of up to ${MAX_IF_MATCH_TAGS} tags matches any of them, a weak tag \`W/"…"\` never matches, \`*\` matches any version). ` +
        'A stale version answers 412 `precondition_failed`; a malformed header 400 `invalid_header`.',
      schema: { type: 'string', minLength: 1, maxLength: MAX_IF_MATCH_CHARS, pattern: IF_MATCH_PATTERN, example: '"3"' },
    });
  }
  if (route.idempotent) {
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'A unique key per intended change, 1 to 255 printable ASCII characters, kept 24 h per API key. A repeat with the same body ' +
        'replays the first answer (with `Idempotent-Replayed: true`) and does nothing again; with another body it is a 422 ' +
        '`idempotency_key_reused`; while the first still runs, a 409 `idempotency_request_in_progress`.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
    });
  }
  return out;
}
