// Inviting people by e-mail (docs/settings-ui.md, "People"). An invitation is a one-time link
// `<origin>/settings/invitation#<token>` (the token in the fragment, so no server or proxy log and no
// Referer carries it); only its SHA-256 is stored. It is e-mailed through the service's mailer when
// SMTP is configured, and shown once to the person or operator who invited (so invitations work
// without e-mail too), never to an API key: a key must not be able to make itself a person's sign-in.
// Accepting checks the token before any password is hashed, makes the account with the invitation's
// role, and deletes the invitation in the same transaction: a second use finds nothing.
import crypto from 'node:crypto';
import { z } from 'zod';
import { config } from '../config.ts';
import { logger } from '../logger.ts';
import { AppError, fromZodIssues } from '../errors/errors.ts';
import type { Principal } from '../access/principal.ts';
import { hashPassword } from '../access/password.ts';
import { emailAddress } from '../validation/text.ts';
import { recordAudit, type AuditActor } from '../audit/audit.writer.ts';
import { configuredMailer, type MailerSettings } from '../notifications/mailer.ts';
import { invitationRepository, type InvitationRow } from './invitation.repository.ts';
import { requirePeopleManager } from './people.service.ts';

/** How long a link works. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60_000;
/** Pending invitations per workspace: bounds the rows (and e-mails) one workspace can make. */
const MAX_PENDING_INVITATIONS = 100;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const MIN_PASSWORD = 12;

export const inviteInput = z.strictObject({
  email: emailAddress().transform((e) => e.toLowerCase()).describe('Where the one-time link goes; the person signs in with it'),
  roleId: z.int().min(1).max(2 ** 31 - 1).describe('The role the person will act with'),
});

const acceptInput = z.strictObject({
  token: z.string().regex(TOKEN, 'is not an invitation token'),
  fullName: z.string().trim().min(1).max(200),
  password: z.string().min(MIN_PASSWORD, `must be at least ${MIN_PASSWORD} characters`).max(1024),
});

const hashToken = (token: string) => crypto.createHash('sha256').update(token).digest('hex');
const linkOf = (token: string) => `${new URL(config.http.publicBaseUrl).origin}/settings/invitation#${token}`;
const USED = 'The invitation link is unknown, used or expired: ask an administrator for a new one';

/** The mailer in use; tests hand in their own (a transport that keeps what it is given). */
let mailer: () => MailerSettings | undefined = configuredMailer;
export const useMailer = (m: MailerSettings | undefined) => (mailer = () => m);

async function email(invitation: InvitationRow, link: string, invitedBy: string): Promise<boolean> {
  const m = mailer();
  if (!m) return false;
  try {
    await m.transport.sendMail({
      from: m.from,
      to: invitation.email,
      subject: `You are invited to ${invitation.workspace.name}`,
      text:
        `${invitedBy} invited you to the workspace ${invitation.workspace.name} (${invitation.workspace.domain}) as ${invitation.role.name}.\n\n` +
        `Choose your name and password here (the link works once, until ${invitation.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC):\n${link}\n\n` +
        'If you did not expect this, ignore this e-mail.\n',
    });
    return true;
  } catch (err) {
    logger.warn({ err, invitationId: invitation.id }, 'could not e-mail the invitation');
    return false;
  }
}

/** A user name from the e-mail's local part, made unique in the workspace with a suffix. */
const userNameFor = (email: string) => async (taken: (name: string) => Promise<boolean>) => {
  const base = email.split('@')[0].replace(/[^A-Za-z0-9._-]/g, '').slice(0, 40) || 'person';
  for (let name = base; ; name = `${base}-${crypto.randomBytes(3).toString('hex')}`) if (!(await taken(name))) return name;
};

export const invitationService = {
  pending(p: Principal) {
    requirePeopleManager(p);
    return invitationRepository.listPending(p.workspace.id, new Date(), MAX_PENDING_INVITATIONS);
  },

  /**
   * Invites `email` with a role; `p` null: the operator. The link comes back only for people and the
   * operator. `emailed`: whether the mail went out (false when e-mail is off or failed).
   */
  async invite(p: Principal | null, workspaceId: number, input: unknown, actor: AuditActor, now = new Date()) {
    requirePeopleManager(p);
    const parsed = inviteInput.safeParse(input);
    if (!parsed.success) throw new AppError('validation_failed', 'The invitation did not pass validation', { errors: fromZodIssues(parsed.error.issues) });
    const { email: address, roleId } = parsed.data;
    const role = await invitationRepository.findRole(workspaceId, roleId);
    if (!role) throw new AppError('validation_failed', `No role ${roleId} in this workspace`, { errors: [{ path: '/roleId', message: 'is not a role of this workspace' }] });
    if (p?.kind === 'apiKey' && role.isAdmin) throw new AppError('forbidden', 'API keys do not invite administrators; an administrator does this in the settings');
    if (await invitationRepository.hasAccount(workspaceId, address)) {
      throw new AppError('validation_failed', 'This e-mail has an account in the workspace already', { errors: [{ path: '/email', message: 'has an account in this workspace' }] });
    }
    const token = crypto.randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
    const created = await invitationRepository.create(
      { workspaceId, email: address, roleId, tokenHash: hashToken(token), invitedById: p?.kind === 'user' ? p.user.id : null, expiresAt },
      now,
      MAX_PENDING_INVITATIONS,
      (tx, inv) => recordAudit(tx, { workspaceId, actor, action: 'user.invited', target: { type: 'invitation', id: inv.id }, before: null, after: { email: address, roleId, expiresAt } }),
    );
    if (created === 'limit') {
      throw new AppError('validation_failed', `A workspace has at most ${MAX_PENDING_INVITATIONS} pending invitations`, { errors: [{ path: '/email', message: 'revoke a pending invitation first' }] });
    }
    const link = linkOf(token);
    const emailed = await email(created, link, p ? p.user.fullName : 'An operator');
    return { invitation: created, link: p?.kind === 'apiKey' ? null : link, emailed };
  },

  async revoke(p: Principal | null, workspaceId: number, id: string, actor: AuditActor) {
    requirePeopleManager(p);
    const revoked = await invitationRepository.revoke(workspaceId, id, (tx, inv) =>
      recordAudit(tx, { workspaceId, actor, action: 'user.invitation_revoked', target: { type: 'invitation', id }, before: { email: inv.email }, after: null }),
    );
    if (!revoked) throw new AppError('not_found', `No pending invitation ${id}`);
    return revoked;
  },

  /** What the link invites to, for the page that accepts it; not found once used, revoked or expired. */
  async preview(token: string) {
    const invitation = TOKEN.test(token) ? await invitationRepository.findByToken(hashToken(token), new Date()) : null;
    if (!invitation) throw new AppError('not_found', USED);
    return invitation;
  },

  /** Makes the invited person's account (anyone holding the link); they then sign in. `clientAddress`: the audit log's. */
  async accept(input: unknown, clientAddress?: string) {
    const parsed = acceptInput.safeParse(input);
    if (!parsed.success) throw new AppError('validation_failed', 'The details are not valid', { errors: fromZodIssues(parsed.error.issues) });
    const { token, fullName, password } = parsed.data;
    // The token first: no password is hashed for a link that does not work.
    const invitation = await this.preview(token);
    const passwordHash = await hashPassword(password);
    const result = await invitationRepository.accept(invitation, { userName: userNameFor(invitation.email), fullName, passwordHash }, (tx, user) =>
      recordAudit(tx, {
        workspaceId: invitation.workspaceId,
        actor: { type: 'person', id: String(user.id), label: invitation.email, address: clientAddress ?? null },
        action: 'user.invitation_accepted',
        target: { type: 'user', id: user.id },
        before: null,
        after: { invitationId: invitation.id, email: invitation.email, roleId: invitation.roleId, fullName },
      }),
    );
    if (result === 'used') throw new AppError('not_found', USED);
    if (result === 'taken') throw new AppError('conflict', 'This e-mail has an account in the workspace already: sign in instead');
    return { userId: result.id, email: invitation.email, workspace: invitation.workspace };
  },
};
