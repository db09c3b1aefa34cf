// The OpenAPI document's `webhooks`, for tests that receive real deliveries: each request's body
// and Standard Webhooks headers must match the entry of its event type. Read from the checked-in
// openapi.json (test/api/document.test.ts keeps it current), so process-level tests need not
// import the service.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { dereference } from '@readme/openapi-parser';

const file = path.resolve(import.meta.dirname, '../../openapi.json');
const doc: any = await dereference(JSON.parse(fs.readFileSync(file, 'utf8')));
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
ajvFormats.default(ajv);
const compiled = new Map<object, ReturnType<typeof ajv.compile>>();
const validatorOf = (schema: object) => compiled.get(schema) ?? compiled.set(schema, ajv.compile(schema)).get(schema)!;

/** Fails the test unless the delivery (raw body, lower-case header names) is as the document describes its type. */
export function expectDocumentedDelivery(req: { headers: Record<string, string>; body: string }) {
  const body = JSON.parse(req.body);
  const hook = doc.webhooks[body.type]?.post;
  expect(hook, `no webhooks entry for the type ${body.type}`).toBeDefined();
  const validate = validatorOf(hook.requestBody.content['application/json'].schema);
  expect(validate(body), `${body.type} body: ${ajv.errorsText(validate.errors)}`).toBe(true);
  for (const param of hook.parameters) {
    const value = req.headers[param.name.toLowerCase()];
    const check = validatorOf(param.schema);
    expect(value !== undefined && check(value), `${body.type} header ${param.name}: ${value} ${ajv.errorsText(check.errors)}`).toBe(true);
  }
}
