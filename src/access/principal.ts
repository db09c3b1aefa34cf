// Who is calling: an API key acting as its service account, or a signed-in human. Computed
// once per request (from a short-lived cache), then read by scopes and services.

export const API_SCOPES = [
  'tickets:read',
  'tickets:write',
  'boards:read',
  'boards:write',
  'users:read',
  'users:write',
  'kb:read',
  'kb:write',
  'webhooks:manage',
  'audit:read',
] as const;
export type ApiScope = (typeof API_SCOPES)[number];

/**
 * Role permissions beyond reading what the role sees, as the services check them. An admin role
 * (`isAdmin`) may do everything, including what only administrators do (keys, boards, roles, people,
 * the audit log); `settings.manage` is held by the built-in Administrator role and implies nothing more.
 */
export const ROLE_PERMISSIONS = ['tickets.write', 'kb.write', 'webhooks.manage'] as const;

export interface RoleAccess {
  id: number;
  name: string;
  isAdmin: boolean;
  allBoards: boolean;
  boardIds: ReadonlySet<string>;
  permissions: ReadonlySet<string>;
}

interface WorkspaceRef {
  id: number;
  name: string;
  domain: string;
}

interface ActorRef {
  id: number;
  userName: string;
  fullName: string;
  roleId: number;
}

interface PrincipalBase {
  workspace: WorkspaceRef;
  user: ActorRef;
  role: RoleAccess;
  /** What the caller may do through the API: the key's scopes, or those a human's role implies. */
  scopes: ReadonlySet<ApiScope>;
  /**
   * The client address of the request this principal came with, which the audit log records: set
   * per request by the HTTP app on its own copy (the cached principal has none), so it travels with
   * the caller explicitly instead of through an AsyncLocalStorage, whose promise hooks cost every
   * request's every promise (bench/results/findings-api.md).
   */
  address?: string;
}

export interface ApiKeyPrincipal extends PrincipalBase {
  kind: 'apiKey';
  apiKey: {
    id: number;
    name: string;
    prefix: string;
    scopes: ApiScope[];
    expiresAt: Date | null;
  };
  limits: { requestsPerMinute: number; maxWebhookSubscriptions: number };
}

export interface UserPrincipal extends PrincipalBase {
  kind: 'user';
  sessionId: string;
  csrfToken: string;
  email: string | null;
  isAdmin: boolean;
}

export type Principal = ApiKeyPrincipal | UserPrincipal;

/** Scopes a human's role grants in GraphQL, so one set of field rules serves keys and people. */
export function scopesForRole(role: RoleAccess): Set<ApiScope> {
  const s = new Set<ApiScope>(['tickets:read', 'boards:read', 'users:read', 'kb:read']);
  if (role.isAdmin || role.permissions.has('tickets.write')) s.add('tickets:write');
  if (role.isAdmin || role.permissions.has('kb.write')) s.add('kb:write');
  if (role.isAdmin || role.permissions.has('webhooks.manage')) s.add('webhooks:manage');
  if (role.isAdmin) for (const admin of ['audit:read', 'boards:write', 'users:write'] as const) s.add(admin);
  return s;
}

export function canSeeBoard(role: RoleAccess, boardId: string): boolean {
  return role.isAdmin || role.allBoards || role.boardIds.has(boardId);
}

/** A Prisma `where` fragment limiting boards to those the role sees. */
export function visibleBoardFilter(role: RoleAccess): { id?: { in: string[] } } {
  return role.isAdmin || role.allBoards ? {} : { id: { in: [...role.boardIds] } };
}
