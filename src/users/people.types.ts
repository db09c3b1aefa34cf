// GraphQL of people administration: invitations (`invitations`, `inviteUser`, `revokeInvitation`,
// and for the invited person `invitation` and `acceptInvitation`), a person's role
// (`changeUserRole`), deactivation (`deactivateUser`, `reactivateUser`).
import { builder } from '../graphql/builder.ts';
import { actorOf } from '../audit/audit.writer.ts';
import { RoleSummary, WorkspaceInfo } from '../graphql/workspace-summaries.ts';
import { peopleService } from './people.service.ts';
import { invitationService } from './invitation.service.ts';
import type { InvitationRow } from './invitation.repository.ts';

const Invitation = builder.objectRef<InvitationRow>('Invitation').implement({
  description: 'A pending invitation: a one-time link e-mailed to the address, which makes the person’s account with the role',
  fields: (t) => ({
    id: t.exposeString('id'),
    email: t.exposeString('email'),
    roleId: t.exposeInt('roleId'),
    role: t.field({ type: RoleSummary, resolve: (i) => i.role }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

type Invited = Awaited<ReturnType<typeof invitationService.invite>>;
const InvitationSent = builder.objectRef<Invited>('InvitationSent').implement({
  description: 'A new invitation; `link` is shown here once, to people and the operator (never to an API key)',
  fields: (t) => ({
    invitation: t.field({ type: Invitation, resolve: (r) => r.invitation }),
    link: t.exposeString('link', { nullable: true, description: 'The one-time link; null for an API key, which only has it e-mailed' }),
    emailed: t.exposeBoolean('emailed', { description: 'Whether the link was e-mailed (false when e-mail is off, or it failed)' }),
  }),
});

const InvitationPreview = builder.objectRef<InvitationRow>('InvitationPreview').implement({
  description: 'What an invitation link invites to (for the person holding it)',
  fields: (t) => ({
    email: t.exposeString('email'),
    role: t.field({ type: RoleSummary, resolve: (i) => i.role }),
    workspace: t.field({ type: WorkspaceInfo, resolve: (i) => i.workspace }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
  }),
});

type Accepted = Awaited<ReturnType<typeof invitationService.accept>>;
const AcceptedInvitation = builder.objectRef<Accepted>('AcceptedInvitation').implement({
  description: 'The account made: sign in with its e-mail (and the workspace) and the password chosen',
  fields: (t) => ({
    userId: t.exposeInt('userId'),
    email: t.exposeString('email'),
    workspace: t.field({ type: WorkspaceInfo, resolve: (a) => a.workspace }),
  }),
});

const InviteUserInput = builder.inputType('InviteUserInput', {
  fields: (t) => ({ email: t.string({ required: true }), roleId: t.int({ required: true }) }),
});

builder.queryField('invitations', (t) =>
  t.field({
    type: [Invitation],
    description: 'The pending invitations, oldest first (administrators; at most 100 are pending)',
    authScopes: { scope: 'users:read' },
    resolve: (_root, _args, ctx) => invitationService.pending(ctx.principal!),
  }),
);

builder.mutationField('inviteUser', (t) =>
  t.field({
    type: InvitationSent,
    description: 'Invites a person by e-mail with a role (an admin role; keys need `users:write` and may not invite to an admin role)',
    authScopes: { scope: 'users:write' },
    args: { input: t.arg({ type: InviteUserInput, required: true }) },
    resolve: (_root, { input }, ctx) => invitationService.invite(ctx.principal, ctx.principal!.workspace.id, input, actorOf(ctx.principal!)),
  }),
);

builder.mutationField('revokeInvitation', (t) =>
  t.field({
    type: Invitation,
    description: 'Revokes a pending invitation: its link stops working',
    authScopes: { scope: 'users:write' },
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, { id }, ctx) => invitationService.revoke(ctx.principal, ctx.principal!.workspace.id, id, actorOf(ctx.principal!)),
  }),
);

builder.queryField('invitation', (t) =>
  t.field({
    type: InvitationPreview,
    description: 'What an invitation link invites to; not found once it is used, revoked or expired (anyone holding the link)',
    args: { token: t.arg.string({ required: true }) },
    resolve: (_root, { token }) => invitationService.preview(token),
  }),
);

builder.mutationField('acceptInvitation', (t) =>
  t.field({
    type: AcceptedInvitation,
    description: 'Makes the invited person’s account with the invitation’s role; the link works once (anyone holding it)',
    args: { token: t.arg.string({ required: true }), fullName: t.arg.string({ required: true }), password: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => invitationService.accept(args, ctx.clientAddress),
  }),
);

const ChangeUserRoleInput = builder.inputType('ChangeUserRoleInput', { fields: (t) => ({ roleId: t.int({ required: true }) }) });

builder.mutationField('changeUserRole', (t) =>
  t.prismaField({
    type: 'User',
    description:
      'Gives a person another role, in force from their next request (an admin role; keys need `users:write` and may not change administrators or give an admin role)',
    authScopes: { scope: 'users:write' },
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: ChangeUserRoleInput, required: true }) },
    resolve: (_query, _root, { id, input }, ctx) => peopleService.changeRole(ctx.principal, ctx.principal!.workspace.id, id, input, actorOf(ctx.principal!)),
  }),
);

for (const [field, active, description] of [
  ['deactivateUser', false, 'Deactivates a person: their sessions end and the keys they made stop working at once'],
  ['reactivateUser', true, 'Reactivates a person: they can sign in again and the keys they made work again'],
] as const) {
  builder.mutationField(field, (t) =>
    t.prismaField({
      type: 'User',
      description: `${description} (an admin role; keys need \`users:write\` and may not act on administrators)`,
      authScopes: { scope: 'users:write' },
      args: { id: t.arg.int({ required: true }) },
      resolve: (_query, _root, { id }, ctx) => peopleService.setActive(ctx.principal, ctx.principal!.workspace.id, id, active, actorOf(ctx.principal!)),
    }),
  );
}


