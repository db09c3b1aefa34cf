// The test kit of workspace administration: people signed in through GraphQL (their session
// cookie and CSRF token), GraphQL as a person or a key, and an invited person's account.
import { expect } from 'vitest';
import { api } from '../support/fixtures.ts';

export const PASSWORD = 'correct horse battery staple';

export interface Session {
  cookie: string;
  csrfToken: string;
}

/** A GraphQL request as a person (session), a key, or nobody; the body as answered. */
export async function gql(query: string, variables: Record<string, unknown> = {}, as: { session?: Session; key?: string } = {}) {
  const headers: Record<string, string> = {};
  if (as.session) Object.assign(headers, { cookie: as.session.cookie, 'x-csrf-token': as.session.csrfToken });
  const res = await api('POST', '/graphql', { body: { query, variables }, key: as.key, headers });
  return res.body as { data: any; errors?: { message: string; extensions: { code: string; errors?: { path: string; message: string }[] } }[] };
}

/** The answer's data, failing on any error. */
export async function gqlData(query: string, variables: Record<string, unknown> = {}, as: { session?: Session; key?: string } = {}) {
  const body = await gql(query, variables, as);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

/** The first error's code. */
export const codeOf = (body: { errors?: { extensions: { code: string } }[] }) => body.errors?.[0]?.extensions.code;

export async function signIn(email: string, password = PASSWORD, workspace?: string): Promise<Session> {
  const res = await api('POST', '/graphql', {
    body: { query: 'mutation($e: String!, $p: String!, $w: String) { signIn(email: $e, password: $p, workspace: $w) { csrfToken } }', variables: { e: email, p: password, w: workspace } },
  });
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return { cookie: res.headers.getSetCookie()[0].split(';')[0], csrfToken: res.body.data.signIn.csrfToken };
}

export const INVITE = `mutation($input: InviteUserInput!) { inviteUser(input: $input) { link emailed invitation { id email roleId expiresAt } } }`;
export const ACCEPT = `mutation($t: String!, $n: String!, $p: String!) { acceptInvitation(token: $t, fullName: $n, password: $p) { userId email workspace { domain } } }`;

/** Invites `email` with the role as the administrator, accepts the link, signs the new person in. */
export async function invitedPerson(admin: Session, email: string, roleId: number) {
  const sent = (await gqlData(INVITE, { input: { email, roleId } }, { session: admin })).inviteUser;
  const token = new URL(sent.link).hash.slice(1);
  const accepted = (await gqlData(ACCEPT, { t: token, n: `Person ${email}`, p: PASSWORD })).acceptInvitation;
  return { id: accepted.userId as number, token, session: await signIn(email, PASSWORD, accepted.workspace.domain) };
}
