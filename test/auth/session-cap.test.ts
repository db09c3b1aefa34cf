// A person's live sessions are capped: signing in once more signs the oldest out (at once, on
// every instance, as a sign-out does) and leaves a notice in the settings UI saying so.
import { describe, expect, it } from 'vitest';
import { createTestWorkspace, randomSuffix } from '../support/fixtures.ts';
import { hashPassword } from '../../src/access/password.ts';
import { workspaceRepository } from '../../src/workspaces/workspace.repository.ts';
import { MAX_LIVE_SESSIONS, sessionService, sessionTokenOf } from '../../src/auth/session.service.ts';
import { prisma } from '../../src/db/db.ts';

const PASSWORD = 'correct horse battery staple';

describe('live sessions per person', () => {
  it(`keeps at most ${MAX_LIVE_SESSIONS}: the oldest is signed out, with a notice`, { timeout: 180_000 }, async () => {
    expect(MAX_LIVE_SESSIONS).toBe(10);
    const ws = await createTestWorkspace('Session cap');
    const email = `cap-${randomSuffix()}@example.test`;
    const user = await workspaceRepository.createUser({ workspaceId: ws.workspace.id, email, fullName: 'Cap', roleId: ws.roles.agent.id, passwordHash: await hashPassword(PASSWORD) });
    const start = Date.now();
    const tokens: string[] = [];
    for (let i = 0; i <= MAX_LIVE_SESSIONS; i++) {
      const { cookie } = await sessionService.signIn({ email, password: PASSWORD }, { now: start + i * 1000 });
      tokens.push(sessionTokenOf(new Headers({ cookie: cookie.split(';')[0] }))!);
    }
    const now = start + (MAX_LIVE_SESSIONS + 1) * 1000;
    expect(await prisma.session.count({ where: { userId: user.id } })).toBe(MAX_LIVE_SESSIONS);
    expect(await sessionService.authenticate(tokens[0], now)).toBeNull();
    for (const token of tokens.slice(1)) expect((await sessionService.authenticate(token, now))?.user.id).toBe(user.id);
    const notices = await prisma.notification.findMany({ where: { userId: user.id } });
    expect(notices.map((n) => n.kind)).toEqual(['session.signed_out']);
  });
});
