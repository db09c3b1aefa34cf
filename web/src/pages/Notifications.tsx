// The viewer's notifications, e.g. "subscription paused after 20 failures", each with a link
// to what it is about: webhook notices apart from ticket notices (tabs), unread counts and Mark all
// as read. Polled, so a new notice shows without a reload.
import { useState } from 'react';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Link, Switch, Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { gql } from '../api/client.ts';
import {
  MARK_ALL_NOTIFICATIONS_READ,
  MARK_NOTIFICATION_READ,
  NOTIFICATIONS,
  UNREAD_COUNT_CAP,
  UNREAD_NOTIFICATION_COUNT,
} from '../api/operations.ts';
import { useAnnounce } from '../components/Announcer.tsx';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { formatDateTime } from '../format.ts';

const PAGE_SIZE = 20;
const SETTINGS_PREFIX = '/settings';

/**
 * Links the server gives are absolute paths. Those inside the settings navigate in place; others
 * (a ticket, `/tickets/7`) belong to the agent app, which this service does not serve. The name
 * starts with the visible words (WCAG 2.5.3, label in name), then which notice.
 */
function NoticeLink({ href, title }: { href: string; title: string }) {
  if (href !== SETTINGS_PREFIX && !href.startsWith(`${SETTINGS_PREFIX}/`)) return null;
  return (
    <Link href={href.slice(SETTINGS_PREFIX.length) || '/'} aria-label={`Open it: ${title}`}>
      Open it
    </Link>
  );
}

const POLL_MS = 15_000;

/** The viewer's unread notices, all and by topic (one request; the navigation shows `all`). */
export function useUnreadCounts() {
  return useQuery({
    queryKey: ['notifications', 'unread'],
    queryFn: () => gql(UNREAD_NOTIFICATION_COUNT),
    refetchInterval: POLL_MS,
  });
}

/** The server counts up to UNREAD_COUNT_CAP: from there on, "999+". */
const countText = (n: number) => (n >= UNREAD_COUNT_CAP ? `${UNREAD_COUNT_CAP - 1}+` : String(n));

/** A count as shown, with its meaning for screen readers ("3 unread"). */
export function UnreadBadge({ count }: { count: number | undefined }) {
  if (!count) return null;
  return (
    <span className="count-badge">
      {/* A space for the accessible name ("Webhooks 2 unread"); none when there is no badge. */}
      <span className="visually-hidden"> </span>
      {countText(count)}
      <span className="visually-hidden"> unread</span>
    </span>
  );
}

const TOPICS = [
  { id: 'all', label: 'All', topic: null },
  { id: 'webhooks', label: 'Webhooks', topic: 'webhooks' },
  { id: 'tickets', label: 'Tickets', topic: 'tickets' },
] as const;
type TopicTab = (typeof TOPICS)[number];

export function NotificationsPage() {
  const [unreadOnly, setUnreadOnly] = useState(false);
  const counts = useUnreadCounts().data;
  return (
    <>
      <PageHeading description="Notices about your workspace, newest first.">Notifications</PageHeading>
      <div className="toolbar">
        <Switch isSelected={unreadOnly} onChange={setUnreadOnly} className="switch">
          <span className="switch-track" aria-hidden="true" />
          Unread only
        </Switch>
      </div>
      <Tabs className="tabs">
        <TabList aria-label="Which notifications" className="tab-list">
          {TOPICS.map((t) => (
            <Tab key={t.id} id={t.id} className="tab">
              {t.label}
              <UnreadBadge count={counts?.[t.id]} />
            </Tab>
          ))}
        </TabList>
        {TOPICS.map((t) => (
          <TabPanel key={t.id} id={t.id} className="tab-panel">
            <NoticeList tab={t} unreadOnly={unreadOnly} unread={counts?.[t.id]} />
          </TabPanel>
        ))}
      </Tabs>
    </>
  );
}

function NoticeList({ tab, unreadOnly, unread }: { tab: TopicTab; unreadOnly: boolean; unread: number | undefined }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const [markError, setMarkError] = useState<unknown>(null);
  const notices = useInfiniteQuery({
    queryKey: ['notifications', 'list', tab.id, unreadOnly],
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam }) =>
      (await gql(NOTIFICATIONS, { first: PAGE_SIZE, after: pageParam, unreadOnly, topic: tab.topic }))
        .notifications,
    getNextPageParam: (last) => (last.pageInfo.hasNextPage ? last.pageInfo.endCursor : null),
    refetchInterval: POLL_MS,
  });
  const rows = notices.data?.pages.flatMap((p) => p.edges.map((e) => e.node)) ?? [];
  const what = tab.topic === null ? 'notifications' : `${tab.label.toLowerCase()} notifications`;

  async function markAll() {
    setMarkError(null);
    try {
      // Up to the newest one shown: a notice arriving meanwhile stays unread.
      const { markAllNotificationsRead: n } = await gql(MARK_ALL_NOTIFICATIONS_READ, {
        topic: tab.topic,
        throughId: rows[0]?.id ?? null,
      });
      await queryClient.invalidateQueries({ queryKey: ['notifications'] });
      announce(n === 1 ? 'Marked 1 notification as read.' : `Marked ${n} notifications as read.`);
    } catch (err) {
      setMarkError(err);
    }
  }

  return (
    <>
      <div className="toolbar">
        <Button className="button button-small" isDisabled={!unread || rows.length === 0} onPress={markAll}>
          Mark all as read
        </Button>
        <span className="muted">{unread ? `${countText(unread)} unread` : `No unread ${what}`}</span>
      </div>
      <ErrorAlert error={notices.error} prefix="The notifications could not be loaded." />
      <ErrorAlert error={markError} />
      {notices.isPending && <p role="status">Loading notifications…</p>}
      {notices.isSuccess && rows.length === 0 && <p>{unreadOnly ? `No unread ${what}.` : `No ${what} yet.`}</p>}
      <ul className="notice-list" aria-label={tab.topic === null ? 'Notifications' : `${tab.label} notifications`}>
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
