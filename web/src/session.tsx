// Who is signed in. `viewer` is read with GET (no CSRF token yet); its csrfToken then goes
// with every POST. Null viewer: the sign-in page.
import { createContext, useContext } from 'react';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { gql, gqlGet, setCsrfToken } from './api/client.ts';
import { ROLES, SIGN_IN, SIGN_OUT, VIEWER, type Viewer } from './api/operations.ts';

export function useViewerQuery() {
  return useQuery({
    queryKey: ['viewer'],
    queryFn: async () => {
      const { viewer } = await gqlGet(VIEWER);
      setCsrfToken(viewer?.csrfToken ?? null);
      return viewer;
    },
    staleTime: 60_000,
  });
}

export interface Session {
  viewer: Viewer;
  /** Settings › Apps › API keys: administrators only (the server refuses everyone else). */
  canManageKeys: boolean;
  /** Webhooks: administrators and roles with the webhooks.manage permission. */
  canManageWebhooks: boolean;
  signOut(): Promise<void>;
}

const SessionContext = createContext<Session | null>(null);
export const SessionProvider = SessionContext.Provider;

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}

/** The viewer's role permissions (the `roles` list has them; `viewer` names the role only). */
export function useRolePermissions(viewer: Viewer | null | undefined) {
  return useQuery({
    queryKey: ['roles'],
    enabled: !!viewer && !viewer.isAdmin,
    queryFn: async () => (await gql(ROLES)).roles,
    select: (roles) => roles.find((r) => r.id === viewer?.role.id)?.permissions ?? [],
    staleTime: 60_000,
  });
}

/** Another person's data must not outlive a sign-in or sign-out; the viewer query stays observed. */
function forgetAllBut(queryClient: QueryClient, key: string) {
  queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== key });
}

export function useSignIn() {
  const queryClient = useQueryClient();
  return async (email: string, password: string, workspace?: string) => {
    const { signIn } = await gql(SIGN_IN, { email, password, workspace });
    setCsrfToken(signIn.csrfToken);
    forgetAllBut(queryClient, 'viewer');
    queryClient.setQueryData(['viewer'], signIn);
  };
}

export function useSignOut() {
  const queryClient = useQueryClient();
  return async () => {
    await gql(SIGN_OUT);
    setCsrfToken(null);
    forgetAllBut(queryClient, 'viewer');
    queryClient.setQueryData(['viewer'], null);
  };
}
