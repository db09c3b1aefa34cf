// The rule that keeps a workspace administrable: at least one active person whose role is an admin
// role. Every change that could break it (a person's role, a deactivation, a role losing admin)
// first locks the workspace's row, so two administrators demoting each other at once cannot both
// pass the count: the second waits for the first's commit and counts after it.
import type { Prisma } from '../generated/prisma/client.ts';
import { AppError } from '../errors/errors.ts';

export async function lockWorkspace(tx: Prisma.TransactionClient, workspaceId: number): Promise<void> {
  await tx.$queryRaw`SELECT id FROM "Workspace" WHERE id = ${workspaceId} FOR UPDATE`;
}

/** Refuses the change unless an active administrator remains besides the person or the role it takes away. */
export async function assertAnotherAdministrator(tx: Prisma.TransactionClient, workspaceId: number, without: { userId?: number; roleId?: number }): Promise<void> {
  const others = await tx.user.count({
    where: {
      workspaceId,
      kind: 'human',
      deactivatedAt: null,
      role: { isAdmin: true, ...(without.roleId === undefined ? {} : { id: { not: without.roleId } }) },
      ...(without.userId === undefined ? {} : { id: { not: without.userId } }),
    },
  });
  if (others === 0) {
    throw new AppError('last_administrator', 'This would leave the workspace without an active administrator: give another person an admin role first');
  }
}
