// The viewer's notifications, e.g. "subscription paused after 20 failures", each with a link
// to what it is about. Polled, so a new notice shows without a reload.
import { useState } from 'react';
import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Link, Switch } from 'react-aria-components';
import { gql } from '../api/client.ts';
import { MARK_NOTIFICATION_READ, NOTIFICATIONS, type Connection, type Notification } from '../api/operations.ts';
import { useAnnounce } from '../components/Announcer.tsx';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { formatDateTime } from '../format.ts';

const PAGE_SIZE = 20;
const SETTINGS_PREFIX = '/settings';

/**
 * Links the server gives are absolute paths. Those inside the settings navigate in place; others
 * (a ticket, `/tickets/7`) belong to the agent app, which this service does not serve.
 */
function NoticeLink({ href, title }: { href: string; title: string }) {
  if (href !== SETTINGS_PREFIX && !href.startsWith(`${SETTINGS_PREFIX}/`)) return null;
  return (
    <Link href={href.slice(SETTINGS_PREFIX.length) || '/'} aria-label={`Open: ${title}`}>
      Open it
    </Link>
  );
}

export function NotificationsPage() {
  const [unreadOnly, setUnreadOnly] = useState(false);
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const [markError, setMarkError] = useState<unknown>(null);
  const notices = useInfiniteQuery({
    queryKey: ['notifications', unreadOnly],
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam }) =>
      (await gql<{ notifications: Connection<Notification> }>(NOTIFICATIONS, { first: PAGE_SIZE, after: pageParam, unreadOnly })).notifications,
    getNextPageParam: (last) => (last.pageInfo.hasNextPage ? last.pageInfo.endCursor : null),
    refetchInterval: 15_000,
  });
  const rows = notices.data?.pages.flatMap((p) => p.edges.map((e) => e.node)) ?? [];

  return (
    <>
      <PageHeading description="Notices about your workspace, newest first.">Notifications</PageHeading>
      <div className="toolbar">
        <Switch isSelected={unreadOnly} onChange={setUnreadOnly} className="switch">
          <span className="switch-track" aria-hidden="true" />
          Unread only
        </Switch>
      </div>
      <ErrorAlert error={notices.error} prefix="The notifications could not be loaded." />
      <ErrorAlert error={markError} />
      {notices.isPending && <p role="status">Loading notifications…</p>}
      {notices.isSuccess && rows.length === 0 && <p>{unreadOnly ? 'No unread notifications.' : 'No notifications yet.'}</p>}
      <ul className="notice-list" aria-label="Notifications">
        {rows.map((n) => (
          <li key={n.id} className={n.read ? 'notice' : 'notice notice-unread'}>
            <article aria-labelledby={`notice-${n.id}`}>
              <h2 id={`notice-${n.id}`} className="notice-title">
                {!n.read && <span className="badge badge-warn">Unread</span>} {n.title}
              </h2>
              <p>{n.body}</p>
              <p className="notice-meta">
                <time dateTime={n.createdAt}>{formatDateTime(n.createdAt)}</time>
                {n.link && <NoticeLink href={n.link} title={n.title} />}
                {!n.read && (
                  <Button
                    className="button button-small"
                    // The visible words first (WCAG 2.5.3, label in name), then which notice.
                    aria-label={`Mark as read: ${n.title}`}
                    onPress={async () => {
                      setMarkError(null);
                      try {
                        await gql(MARK_NOTIFICATION_READ, { id: n.id });
                        await queryClient.invalidateQueries({ queryKey: ['notifications'] });
                        announce('Marked as read.');
                      } catch (err) {
                        setMarkError(err);
                      }
                    }}
                  >
                    Mark as read
                  </Button>
                )}
              </p>
            </article>
          </li>
        ))}
      </ul>
      {notices.hasNextPage && (
        <Button className="button" onPress={() => notices.fetchNextPage()} isPending={notices.isFetchingNextPage}>
          Show older notifications
        </Button>
      )}
    </>
  );
}
