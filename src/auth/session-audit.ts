// The audit log's entries of sessions (src/audit): sign-ins, failed sign-ins and sign-outs, each
// about the account (target `user`), acted by its person, from the request's client address.
import { recordAudit, type AuditWrite } from '../audit/audit.writer.ts';
import { auditRepository } from '../audit/audit.repository.ts';
import { NO_SOCKET } from '../rate-limit/client-address.ts';

/**
 * Failed sign-ins recorded per account and hour at most. The sign-in throttle already bounds the
 * attempts of one (e-mail, address) pair and of one address per day; this bounds what many
 * addresses together can add to one workspace's log: an e-mail without an account in the
 * workspace is never recorded, and an account's failures beyond this are not either.
 */
export const MAX_FAILED_SIGN_INS_RECORDED_PER_HOUR = 20;

interface Account {
  id: number;
  workspaceId: number;
  email: string | null;
  userName: string;
}

const addressOf = (clientAddress: string) => (clientAddress === NO_SOCKET ? undefined : clientAddress);
const person = (a: Account) => ({ type: 'person' as const, id: String(a.id), label: a.email ?? a.userName });

export const signedIn =
  (account: Account, clientAddress: string): AuditWrite =>
  (tx) =>
    recordAudit(tx, { workspaceId: account.workspaceId, actor: person(account), action: 'session.signed_in', target: { type: 'user', id: account.id }, address: addressOf(clientAddress) });

export const signedOut =
  (account: Account, clientAddress: string | undefined): AuditWrite =>
  (tx) =>
    recordAudit(tx, { workspaceId: account.workspaceId, actor: person(account), action: 'session.signed_out', target: { type: 'user', id: account.id }, address: clientAddress ?? null });

/** A wrong password (or a deactivated account) for each account the e-mail names; unknown e-mails are not recorded. */
export async function recordFailedSignIns(accounts: Account[], clientAddress: string, now: Date): Promise<void> {
  const since = new Date(now.getTime() - 60 * 60 * 1000);
  for (const account of accounts) {
    const recent = await auditRepository.countRecent(account.workspaceId, 'session.sign_in_failed', { type: 'user', id: String(account.id) }, since);
    if (recent >= MAX_FAILED_SIGN_INS_RECORDED_PER_HOUR) continue;
    await auditRepository.record({
      workspaceId: account.workspaceId,
      actor: person(account),
      action: 'session.sign_in_failed',
      target: { type: 'user', id: account.id },
      address: addressOf(clientAddress),
    });
  }
}
