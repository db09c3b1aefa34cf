// Creating workspaces: the first-run demo, the operator's (`npm run cli -- workspaces create`),
// and a fresh workspace per test. All start alike: the standard roles, an administrator and
// starter boards.
import crypto from 'node:crypto';
import { z } from 'zod';
import { AppError, fromZodIssues } from '../errors/errors.ts';
import { hashPassword } from '../access/password.ts';
import { apiKeyService } from '../api-keys/api-key.service.ts';
import { API_SCOPES } from '../access/principal.ts';
import { workspaceRepository, type BoardSeed } from './workspace.repository.ts';
import { OPERATOR, recordAudit } from '../audit/audit.writer.ts';

const demoBoards: BoardSeed[] = [
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

const operatorInput = z
  .object({
    name: z.string().trim().min(1).max(200),
    domain: z
      .string()
      .trim()
      .max(2048)
      .transform((v, ctx) => {
        try {
          const url = new URL(v);
          if (url.protocol === 'https:' || url.protocol === 'http:') return url.origin;
        } catch {
          // Not a URL at all: the same answer as another scheme.
        }
        ctx.addIssue({ code: 'custom', message: 'must be an http(s) URL, such as https://support.example.com' });
        return z.NEVER;
      }),
    adminEmail: z.email().max(254),
    adminName: z.string().trim().min(1).max(200).default('Administrator'),
  })
  .strict();

export const workspaceService = {
  async create(input: { name: string; domain: string; adminEmail: string; adminName: string; adminPassword: string; boards?: BoardSeed[] }) {
    const created = await workspaceRepository.createWithAdmin({
      name: input.name,
      domain: input.domain,
      admin: { email: input.adminEmail, fullName: input.adminName, passwordHash: await hashPassword(input.adminPassword) },
    }, (tx, ws) =>
      // Workspaces are made by the operator only (`npm start`'s demo, `npm run cli -- workspaces create`).
      recordAudit(tx, { workspaceId: ws.id, actor: OPERATOR, action: 'workspace.created', target: { type: 'workspace', id: ws.id }, before: null, after: ws }),
    );
    const boards = [];
    for (const b of input.boards ?? demoBoards) boards.push(await workspaceRepository.createBoard(created.workspace.id, b));
    return { ...created, boards };
  },

  /**
   * An operator's new workspace: as the first run's demo (the standard roles, its administrator,
   * the Support board), without a key (`keys create --workspace` makes them). The administrator's
   * password is random and returned once.
   */
  async createForOperator(input: z.input<typeof operatorInput>) {
    const parsed = operatorInput.safeParse(input);
    if (!parsed.success) throw new AppError('validation_failed', 'The workspace details are not valid', { errors: fromZodIssues(parsed.error.issues) });
    const { name, domain, adminEmail, adminName } = parsed.data;
    if (await workspaceRepository.findByDomain(domain)) throw new AppError('conflict', `A workspace with address ${domain} exists already`);
    const adminPassword = crypto.randomBytes(12).toString('base64url');
    const ws = await this.create({ name, domain, adminEmail, adminName, adminPassword, boards: demoBoards.slice(0, 1) });
    return { ...ws, adminPassword };
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
