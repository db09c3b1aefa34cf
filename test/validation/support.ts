import { expect } from 'vitest';
import { api } from '../support/fixtures.ts';

/** A subscription made through the API; the name never resolves (RFC 2606), so saving accepts it. */
export async function createWebhook(key: string, url = 'https://hooks.validation.invalid/in'): Promise<string> {
  const res = await api('POST', '/webhooks', { key, body: { url, events: ['ticket.created'] } });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}
