import { expect } from 'vitest';
import { api } from '../support/fixtures.ts';

/** A subscription made through the API, to a public address (a host name would have to resolve). */
export async function createWebhook(key: string, url = 'https://93.184.216.34/in'): Promise<string> {
  const res = await api('POST', '/webhooks', { key, body: { url, events: ['ticket.created'] } });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}
