// The frame of the settings: sign-in when nobody is signed in, else the navigation (only the
// pages the viewer's role allows) and the page of the current address.
import { Button, Link } from 'react-aria-components';
import { Redirect, Route, Switch, useLocation } from 'wouter';
import { ErrorAlert } from './components/ErrorAlert.tsx';
import { AnnouncerProvider } from './components/Announcer.tsx';
import { PageHeading } from './components/PageHeading.tsx';
import { SessionProvider, useRolePermissions, useSignOut, useViewerQuery, type Session } from './session.tsx';
import { SignInPage } from './pages/SignIn.tsx';
import { ApiKeysPage } from './pages/ApiKeys.tsx';
import { WebhooksPage } from './pages/Webhooks.tsx';
import { WebhookPage } from './pages/Webhook.tsx';
import { NotificationsPage, UnreadBadge, useUnreadCounts } from './pages/Notifications.tsx';
import { AuditLogPage } from './pages/AuditLog.tsx';
import { BoardsPage } from './pages/Boards.tsx';
import { RolesPage } from './pages/Roles.tsx';
import { PeoplePage } from './pages/People.tsx';
import { AcceptInvitationPage } from './pages/AcceptInvitation.tsx';

export function App() {
  const viewerQuery = useViewerQuery();
  const viewer = viewerQuery.data;
  const permissions = useRolePermissions(viewer);
  const signOut = useSignOut();
  const [location] = useLocation();

  // An invitation link is for whoever holds it, signed in or not.
  if (location === '/invitation') return <AcceptInvitationPage />;
  if (viewerQuery.isPending || (viewer && !viewer.isAdmin && permissions.isPending)) {
    return <p className="loading" role="status">Loading…</p>;
  }
  if (viewerQuery.isError) {
    return (
      <main className="centered">
        <ErrorAlert error={viewerQuery.error} />
      </main>
    );
  }
  if (!viewer) return <SignInPage />;

  const session: Session = {
    viewer,
    canManageKeys: viewer.isAdmin,
    canManageWebhooks: viewer.isAdmin || (permissions.data ?? []).includes('webhooks.manage'),
    signOut,
  };
  return (
    <SessionProvider value={session}>
      <AnnouncerProvider>
        <Shell session={session} />
      </AnnouncerProvider>
    </SessionProvider>
  );
}

function NavLink({ href, children }: { href: string; children: React.ReactNode }) {
  const [location] = useLocation();
  const current = location === href || location.startsWith(`${href}/`);
  return (
    <Link href={href} className="nav-link" aria-current={current ? 'page' : undefined}>
      {children}
    </Link>
  );
}

function Shell({ session }: { session: Session }) {
  const { viewer } = session;
  const unread = useUnreadCounts();
  const home = session.canManageKeys ? '/apps/api-keys' : session.canManageWebhooks ? '/webhooks' : '/notifications';
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="workspace-name">{viewer.workspace.name}</span>
        <span className="viewer">
          <span className="viewer-name">
            {viewer.fullName} <span className="muted">({viewer.role.name})</span>
          </span>
          <Button className="button button-small" onPress={() => session.signOut()}>
            Sign out
          </Button>
        </span>
      </header>
      <nav aria-label="Settings" className="sidebar">
        <p className="nav-title">Settings</p>
        <ul>
          {(session.canManageKeys || session.canManageWebhooks) && (
            <li>
              <span className="nav-group">Apps</span>
              <ul>
                {session.canManageKeys && (
                  <li>
                    <NavLink href="/apps/api-keys">API keys</NavLink>
                  </li>
                )}
                {session.canManageWebhooks && (
                  <li>
                    <NavLink href="/webhooks">Webhooks</NavLink>
                  </li>
                )}
              </ul>
            </li>
          )}
          <li>
            <NavLink href="/notifications">
              Notifications
              <UnreadBadge count={unread.data?.all} />
            </NavLink>
          </li>
          {viewer.isAdmin && (
            <li>
              <span className="nav-group">Workspace</span>
              <ul>
                <li>
                  <NavLink href="/workspace/boards">Boards</NavLink>
                </li>
                <li>
                  <NavLink href="/workspace/roles">Roles</NavLink>
                </li>
                <li>
                  <NavLink href="/workspace/people">People</NavLink>
                </li>
              </ul>
            </li>
          )}
          {viewer.isAdmin && (
            <li>
              <NavLink href="/audit-log">Audit log</NavLink>
            </li>
          )}
        </ul>
      </nav>
      <main id="main" className="content">
        <Switch>
          <Route path="/">
            <Redirect to={home} replace />
          </Route>
          <Route path="/apps/api-keys">{session.canManageKeys ? <ApiKeysPage /> : <NotAllowed what="API keys" />}</Route>
          <Route path="/webhooks">{session.canManageWebhooks ? <WebhooksPage /> : <NotAllowed what="webhooks" />}</Route>
          <Route path="/webhooks/:id">
            {(params) => (session.canManageWebhooks ? <WebhookPage id={params.id} /> : <NotAllowed what="webhooks" />)}
          </Route>
          <Route path="/notifications">
            <NotificationsPage />
          </Route>
          <Route path="/audit-log">{viewer.isAdmin ? <AuditLogPage /> : <NotAllowed what="the audit log" />}</Route>
          <Route path="/workspace/boards">{viewer.isAdmin ? <BoardsPage /> : <NotAllowed what="boards" />}</Route>
          <Route path="/workspace/roles">{viewer.isAdmin ? <RolesPage /> : <NotAllowed what="roles" />}</Route>
          <Route path="/workspace/people">{viewer.isAdmin ? <PeoplePage /> : <NotAllowed what="people" />}</Route>
          <Route>
            <PageHeading>Page not found</PageHeading>
            <p>
              There is no settings page at this address. <Link href={home}>Go to the settings.</Link>
            </p>
          </Route>
        </Switch>
      </main>
    </div>
  );
}

function NotAllowed({ what }: { what: string }) {
  return (
    <>
      <PageHeading>Not available</PageHeading>
      <p role="alert" className="alert alert-info">
        Your role does not allow managing {what}. Ask a workspace administrator if you need access.
      </p>
    </>
  );
}
