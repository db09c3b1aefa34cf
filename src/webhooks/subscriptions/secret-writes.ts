// Writes that seal or open a signing secret (create, rotate), against keys that change under a
// running service (docs/operators/admin-cli.md, "Webhook secrets"). A process that chose its key
// just before `secrets reencrypt` retired it tries once more (the key file is read again); one whose
// keys are behind (WEBHOOK_SECRET_KEYS not yet rolled) cannot seal or open the row: it says in the
// log which key it needs, and the caller gets 503 to retry, never a 500.
import { AppError } from '../../errors/errors.ts';
import { logger } from '../../logger.ts';
import { SecretKeyMissingError, secretKeys } from '../message/secret-box.ts';
import { retiredKeyOf } from './secret.repository.ts';

export async function withSecretKeys<T>(what: string, subscriptionId: string | null, write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      const retired = retiredKeyOf(err);
      if (!retired && !(err instanceof SecretKeyMissingError)) throw err;
      if (retired && attempt === 1 && !secretKeys.fromConfig) continue;
      const need = retired
        ? `this process seals under key ${retired} (the first of ${secretKeys.source}), which \`secrets reencrypt\` retired: put the newer key first and restart it`
        : (err as Error).message;
      logger.error({ subscriptionId }, `cannot ${what}: ${need}`);
      throw new AppError('service_unavailable', 'The signing secret cannot be written right now (the service is changing its encryption keys); retry in a minute', {
        headers: { 'Retry-After': '60' },
      });
    }
  }
}
