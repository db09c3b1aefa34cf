// GraphQL for people in the settings UI: sign-in, sign-out and `viewer`. The session travels in
// an HttpOnly cookie; every POST it authenticates needs X-CSRF-Token = viewer.csrfToken (see
// csrf.ts), so the UI reads `viewer` with GET (or takes it from signIn) before anything else.
import { builder } from '../graphql/builder.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import { AppError } from '../errors/errors.ts';
import { RoleSummary, WorkspaceInfo } from '../graphql/workspace-summaries.ts';
import type { UserPrincipal } from '../access/principal.ts';
import { sessionService } from './session.service.ts';

const Viewer = builder.objectRef<UserPrincipal>('Viewer').implement({
  description: 'The signed-in person',
  fields: (t) => ({
    id: t.int({ resolve: (p) => p.user.id }),
    userName: t.string({ resolve: (p) => p.user.userName }),
    fullName: t.string({ resolve: (p) => p.user.fullName }),
    email: t.exposeString('email', { nullable: true }),
    isAdmin: t.boolean({
      description: "May administer the workspace (API keys, webhooks, settings): the role's administrator flag",
      resolve: (p) => p.role.isAdmin,
    }),
    role: t.field({ type: RoleSummary, resolve: (p) => p.role }),
    workspace: t.field({ type: WorkspaceInfo, resolve: (p) => p.workspace }),
    csrfToken: t.exposeString('csrfToken', { description: 'Send it as the X-CSRF-Token header with every POST of this session' }),
  }),
});

function responseCookies(ctx: GraphQLContext): string[] {
  if (!ctx.responseCookies) throw new AppError('invalid_request', 'Sign in and out through /graphql');
  return ctx.responseCookies;
}

builder.queryField('viewer', (t) =>
  t.field({
    type: Viewer,
    nullable: true,
    description: 'The signed-in person; null without a valid session (API keys use `me`)',
    resolve: (_root, _args, ctx) => (ctx.principal?.kind === 'user' ? ctx.principal : null),
  }),
);

builder.mutationField('signIn', (t) =>
  t.field({
    type: Viewer,
    description:
      'Checks e-mail and password and sets the HttpOnly session cookie. Unknown e-mail, wrong password and a deactivated account get the same `unauthenticated` answer.',
    args: {
      email: t.arg.string({ required: true }),
      password: t.arg.string({ required: true }),
      workspace: t.arg.string({ description: 'The workspace address; needed only when the e-mail has accounts in several workspaces' }),
    },
    resolve: async (_root, args, ctx) => {
      const cookies = responseCookies(ctx);
      const { principal, cookie } = await sessionService
        .signIn({ email: args.email, password: args.password, workspace: args.workspace ?? undefined }, { clientAddress: ctx.clientAddress })
        .catch((err: unknown) => {
          // A throttled sign-in's Retry-After goes on the HTTP answer.
          if (err instanceof AppError && err.code === 'rate_limited') Object.assign(ctx.responseHeaders ?? {}, err.headers);
          throw err;
        });
      // A fresh session per sign-in; the one the browser held before ends with it.
      if (ctx.principal?.kind === 'user') await sessionService.end(ctx.principal.sessionId);
      cookies.push(cookie);
      return principal;
    },
  }),
);

builder.mutationField('signOut', (t) =>
  t.boolean({
    description: 'Ends the session and clears its cookie; false when there was no session',
    resolve: async (_root, _args, ctx) => {
      const cookies = responseCookies(ctx);
      if (ctx.principal?.kind !== 'user') return false;
      cookies.push(await sessionService.end(ctx.principal.sessionId, ctx.principal));
      return true;
    },
  }),
);
