// Inviting people: the one-time link e-mailed through the service's mailer (and shown once to
// the person who invited, never to a key), accepted once, before it expires, with the role it names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { prisma } from '../../src/db/db.ts';
import { INVITATION_TTL_MS, useMailer } from '../../src/users/invitation.service.ts';
import { ACCEPT, INVITE, codeOf, gql, gqlData, PASSWORD, signIn, type Session } from './admin-kit.ts';
import type { Ws } from '../tickets/helpers.ts';

const sent: { to: unknown; subject: string; text: string }[] = [];
let ws: Ws;
let admin: Session;

beforeAll(async () => {
  useMailer({ from: 'service@example.test', transport: { sendMail: async (m) => void sent.push(m as never) } });
  ws = await createTestWorkspace('Invitations');
  admin = await signIn(ws.admin.email!);
});
afterAll(() => useMailer(undefined));

const tokenOf = (link: string) => new URL(link).hash.slice(1);

describe('invitations', () => {
  it('e-mails a one-time link, which makes the account with the role once', async () => {
    const email = `new-${ws.workspace.id}@example.test`;
    const { inviteUser } = await gqlData(INVITE, { input: { email: email.toUpperCase(), roleId: ws.roles.agent.id } }, { session: admin });
    expect(inviteUser).toMatchObject({ emailed: true, invitation: { email, roleId: ws.roles.agent.id } });
    expect(inviteUser.link).toMatch(/^http:\/\/[^/]+\/settings\/invitation#[A-Za-z0-9_-]{43}$/);
    const mail = sent.at(-1)!;
    expect(mail.to).toBe(email);
    expect(mail.text).toContain(inviteUser.link);
    // Only the token's hash is stored.
    const row = await prisma.invitation.findUniqueOrThrow({ where: { id: inviteUser.invitation.id } });
    expect(JSON.stringify(row)).not.toContain(tokenOf(inviteUser.link));

    const preview = await gqlData(`query($t: String!) { invitation(token: $t) { email role { name } workspace { domain } } }`, { t: tokenOf(inviteUser.link) });
    expect(preview.invitation).toEqual({ email, role: { name: 'Agent' }, workspace: { domain: ws.workspace.domain } });

    const accepted = await gqlData(ACCEPT, { t: tokenOf(inviteUser.link), n: 'New Person', p: PASSWORD });
    expect(accepted.acceptInvitation).toMatchObject({ email, workspace: { domain: ws.workspace.domain } });
    const person = await prisma.user.findUniqueOrThrow({ where: { id: accepted.acceptInvitation.userId } });
    expect(person).toMatchObject({ kind: 'human', email, roleId: ws.roles.agent.id, fullName: 'New Person', isAdmin: false, deactivatedAt: null });
    await signIn(email);

    // Used twice: the second finds nothing, and no second account is made.
    const twice = await gql(ACCEPT, { t: tokenOf(inviteUser.link), n: 'Again', p: PASSWORD });
    expect(codeOf(twice)).toBe('not_found');
    expect(await prisma.user.count({ where: { workspaceId: ws.workspace.id, email } })).toBe(1);

    const audit = await prisma.auditEntry.findMany({ where: { workspaceId: ws.workspace.id, action: { in: ['user.invited', 'user.invitation_accepted'] } }, orderBy: { occurredAt: 'asc' } });
    expect(audit.map((a) => [a.action, a.actorType, a.actorLabel])).toEqual([
      ['user.invited', 'person', ws.admin.email],
      ['user.invitation_accepted', 'person', email],
    ]);
    expect(JSON.stringify(audit)).not.toContain(tokenOf(inviteUser.link));
  });

  it('accepts a link once when two acceptances race', async () => {
    const email = `race-${ws.workspace.id}@example.test`;
    const { inviteUser } = await gqlData(INVITE, { input: { email, roleId: ws.roles.viewer.id } }, { session: admin });
    const both = await Promise.all([1, 2].map((n) => gql(ACCEPT, { t: tokenOf(inviteUser.link), n: `Racer ${n}`, p: PASSWORD })));
    expect(both.map((b) => codeOf(b) ?? 'ok').sort()).toEqual(['not_found', 'ok']);
    expect(await prisma.user.count({ where: { workspaceId: ws.workspace.id, email } })).toBe(1);
  });

  it('refuses an expired, a revoked and a replaced link, without hashing a password for them', async () => {
    const email = `late-${ws.workspace.id}@example.test`;
    const first = (await gqlData(INVITE, { input: { email, roleId: ws.roles.viewer.id } }, { session: admin })).inviteUser;
    const second = (await gqlData(INVITE, { input: { email, roleId: ws.roles.viewer.id } }, { session: admin })).inviteUser;
    expect(codeOf(await gql(ACCEPT, { t: tokenOf(first.link), n: 'Old link', p: PASSWORD }))).toBe('not_found');

    await prisma.invitation.update({ where: { id: second.invitation.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(codeOf(await gql(ACCEPT, { t: tokenOf(second.link), n: 'Too late', p: PASSWORD }))).toBe('not_found');

    const third = (await gqlData(INVITE, { input: { email, roleId: ws.roles.viewer.id } }, { session: admin })).inviteUser;
    expect(Date.parse(third.invitation.expiresAt) - Date.now()).toBeGreaterThan(INVITATION_TTL_MS - 60_000);
    await gqlData(`mutation($id: String!) { revokeInvitation(id: $id) { id } }`, { id: third.invitation.id }, { session: admin });
    expect(codeOf(await gql(ACCEPT, { t: tokenOf(third.link), n: 'Revoked', p: PASSWORD }))).toBe('not_found');
    expect(await prisma.user.count({ where: { workspaceId: ws.workspace.id, email } })).toBe(0);
  });

  it('refuses an address that has an account, a role of another workspace and a short password', async () => {
    const taken = await gql(INVITE, { input: { email: ws.admin.email!.toUpperCase(), roleId: ws.roles.agent.id } }, { session: admin });
    expect(taken.errors?.[0]?.extensions.errors).toEqual([{ path: '/email', message: 'has an account in this workspace' }]);
    const other = await createTestWorkspace('Other');
    const foreign = await gql(INVITE, { input: { email: 'x@example.test', roleId: other.roles.agent.id } }, { session: admin });
    expect(foreign.errors?.[0]?.extensions.errors).toEqual([{ path: '/roleId', message: 'is not a role of this workspace' }]);
    const { inviteUser } = await gqlData(INVITE, { input: { email: `short-${ws.workspace.id}@example.test`, roleId: ws.roles.agent.id } }, { session: admin });
    const short = await gql(ACCEPT, { t: tokenOf(inviteUser.link), n: 'Short', p: 'short' });
    expect(short.errors?.[0]?.extensions.errors?.map((e) => e.path)).toEqual(['/password']);
  });

  it('lets a key with users:write invite, by e-mail only: the link is never in its answer, and no admin role', async () => {
    const key = (await ws.key()).value;
    const res = await api('POST', '/invitations', { key, body: { email: `viakey-${ws.workspace.id}@example.test`, roleId: ws.roles.agent.id } });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({ invitation: { id: expect.stringMatching(/^inv_/), email: `viakey-${ws.workspace.id}@example.test`, roleId: ws.roles.agent.id, expiresAt: expect.any(String), createdAt: expect.any(String) }, emailed: true });
    expect(res.text).not.toContain('#');
    expect(sent.at(-1)!.to).toBe(`viakey-${ws.workspace.id}@example.test`);
    const admin = await api('POST', '/invitations', { key, body: { email: `boss-${ws.workspace.id}@example.test`, roleId: ws.roles.admin.id } });
    expect(admin.status).toBe(403);
    const revoked = await api('DELETE', `/invitations/${res.body.invitation.id}`, { key });
    expect(revoked.status).toBe(200);
    expect((await api('DELETE', `/invitations/${res.body.invitation.id}`, { key })).status).toBe(404);
  });
});
