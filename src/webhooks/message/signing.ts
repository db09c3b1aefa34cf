// Standard Webhooks signatures (standardwebhooks.com): `v1,` + base64(HMAC-SHA256(key,
// `${id}.${timestamp}.${body}`)) with key = the base64-decoded part of `whsec_…`. Receivers built
// with the `standardwebhooks` or `svix` libraries verify these unchanged.
import crypto from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** For 24 hours after a rotation the previous secret signs too, so receivers can switch over. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString('base64')}`;
}

interface SigningSecrets {
  secret: string;
  previousSecret?: string | null;
  secretRotatedAt?: Date | null;
}

/** The secrets that sign at `at`: the current one first, then the previous one inside the overlap. */
export function activeSecrets(s: SigningSecrets, at: Date): string[] {
  const overlapping =
    s.previousSecret && s.secretRotatedAt && at.getTime() - s.secretRotatedAt.getTime() < ROTATION_OVERLAP_MS;
  return overlapping ? [s.secret, s.previousSecret!] : [s.secret];
}

/** The three Standard Webhooks headers for one attempt. */
export function signatureHeaders(input: { id: string; body: string; timestamp: Date; secrets: string[] }) {
  return {
    'webhook-id': input.id,
    'webhook-timestamp': String(Math.floor(input.timestamp.getTime() / 1000)),
    'webhook-signature': input.secrets.map((secret) => new Webhook(secret).sign(input.id, input.timestamp, input.body)).join(' '),
  };
}
