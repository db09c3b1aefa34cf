// Creating workspaces: the first-run demo, and a fresh workspace per test.
import crypto from 'node:crypto';
import { hashPassword } from '../auth/password.ts';
import { apiKeyService } from '../api-keys/api-key.service.ts';
import { API_SCOPES } from '../access/principal.ts';
import { workspaceRepository, type BoardSeed } from './workspace.repository.ts';

export const demoBoards: BoardSeed[] = [
  {
    name: 'Support',
    description: 'Customer questions and incidents',
    priorities: ['low', 'normal', 'high', 'urgent'],
    fields: [
      { name: 'Product', type: 'select', required: true, options: ['Web', 'Mobile', 'API'] },
      { name: 'Order number', type: 'text' },
      { name: 'Affected users', type: 'number' },
    ],
    states: [
      { name: 'New', category: 'open', initial: true },
      { name: 'In progress', category: 'open' },
      { name: 'Waiting on customer', category: 'pending' },
      { name: 'Resolved', category: 'solved' },
      { name: 'Closed', category: 'closed' },
    ],
  },
  {
    name: 'Billing',
    description: 'Invoices, refunds and payment problems',
    priorities: ['normal', 'high'],
    fields: [
      { name: 'Invoice', type: 'text', required: true },
      { name: 'Refund requested', type: 'boolean' },
      { name: 'Due date', type: 'date' },
    ],
    states: [
      { name: 'Open', category: 'open', initial: true },
      { name: 'Pending', category: 'pending' },
      { name: 'Done', category: 'solved' },
    ],
  },
];

export const workspaceService = {
  async create(input: { name: string; domain: string; adminEmail: string; adminName: string; adminPassword: string; boards?: BoardSeed[] }) {
    const created = await workspaceRepository.createWithAdmin({
      name: input.name,
      domain: input.domain,
      admin: { email: input.adminEmail, fullName: input.adminName, passwordHash: await hashPassword(input.adminPassword) },
    });
    const boards = [];
    for (const b of input.boards ?? demoBoards) boards.push(await workspaceRepository.createBoard(created.workspace.id, b));
    return { ...created, boards };
  },

  /** First run: on an empty database, a demo workspace and a key with every scope. */
  async seedDemoIfEmpty(baseUrl: string) {
    if ((await workspaceRepository.count()) > 0) return null;
    const adminPassword = crypto.randomBytes(12).toString('base64url');
    const ws = await this.create({
      name: 'Demo workspace',
      domain: new URL(baseUrl).origin,
      adminEmail: 'admin@example.com',
      adminName: 'Demo Administrator',
      adminPassword,
    });
    const key = await apiKeyService.create(ws.workspace.id, { name: 'Demo key', role: ws.roles.admin.id, scopes: [...API_SCOPES] }, ws.admin.id);
    return { ...ws, adminPassword, apiKey: key.value };
  },
};
