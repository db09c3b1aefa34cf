// Password hashes follow OWASP's current guidance (argon2id, m=19 MiB, t=2, p=1), and a hash of the
// earlier scheme (scrypt, N=2^14) is replaced at the person's next sign-in.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashPassword, needsRehash, verifyPassword } from '../../src/access/password.ts';
import { sessionService } from '../../src/auth/session.service.ts';
import { workspaceRepository } from '../../src/workspaces/workspace.repository.ts';
import { prisma } from '../../src/db/db.ts';
import { createTestWorkspace, randomSuffix } from '../support/fixtures.ts';

const PASSWORD = 'correct horse battery staple';

/** A hash as the service made them before: scrypt N=2^14, r=8, p=1. */
function legacyScryptHash(password: string): string {
  const salt = crypto.randomBytes(16);
  const digest = crypto.scryptSync(password, salt, 32, { N: 16384, r: 8, p: 1 });
  return `scrypt$16384$8$1$${salt.toString('base64')}$${digest.toString('base64')}`;
}

describe('password hashes', () => {
  it('are argon2id with m=19456 KiB, t=2, p=1, salted, and verify only the right password', async () => {
    const [a, b] = await Promise.all([hashPassword(PASSWORD), hashPassword(PASSWORD)]);
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(a).not.toBe(b);
    expect(needsRehash(a)).toBe(false);
    expect(await verifyPassword(PASSWORD, a)).toBe(true);
    expect(await verifyPassword('wrong', a)).toBe(false);
    expect(await verifyPassword(PASSWORD, '$argon2id$v=19$m=19456,t=2,p=1$broken')).toBe(false);
  });

  it('upgrades a stored scrypt hash to argon2id at the next sign-in, and only after the right password', async () => {
    const ws = await createTestWorkspace();
    const suffix = randomSuffix();
    const legacy = legacyScryptHash(PASSWORD);
    expect(needsRehash(legacy)).toBe(true);
    const user = await workspaceRepository.createUser({
      workspaceId: ws.workspace.id,
      email: `legacy-${suffix}@example.test`,
      fullName: `Legacy ${suffix}`,
      roleId: ws.roles.agent.id,
      passwordHash: legacy,
    });
    const stored = async () => (await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).passwordHash!;

    await expect(sessionService.signIn({ email: user.email!, password: 'wrong password' })).rejects.toThrow();
    expect(await stored()).toBe(legacy);

    await sessionService.signIn({ email: user.email!, password: PASSWORD });
    const upgraded = await stored();
    expect(upgraded).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    // The same password signs in with the new hash.
    await sessionService.signIn({ email: user.email!, password: PASSWORD });
    expect(await stored()).toBe(upgraded);
  });
});
