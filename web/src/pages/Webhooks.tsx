// Settings › Apps › Webhooks: the subscriptions with their condition at a glance, New webhook.
import { useInfiniteQuery } from '@tanstack/react-query';
import { Button, Link } from 'react-aria-components';
import { gql } from '../api/client.ts';
import { WEBHOOK_SUBSCRIPTIONS } from '../api/operations.ts';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { HealthBadge, HealthFacts } from './SubscriptionHealth.tsx';
import { useBoards, WebhookFormDialog } from './WebhookForm.tsx';
import { destinationTypeName } from './DestinationFields.tsx';

const PAGE_SIZE = 25;

export function WebhooksPage() {
  const subscriptions = useInfiniteQuery({
    queryKey: ['webhooks', 'list'],
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam }) =>
      (await gql(WEBHOOK_SUBSCRIPTIONS, { first: PAGE_SIZE, after: pageParam })).webhookSubscriptions,
    getNextPageParam: (last) => (last.pageInfo.hasNextPage ? last.pageInfo.endCursor : null),
    // Conditions change on their own (a pause after failures): keep the list current. What the poll
    // costs when nothing changes: ONE GraphQL request per 10 s for the whole page, never one per row.
    // On the server that is the workspace's subscriptions (one read, secrets opened), every row's
    // health in one statement (`health`, batched: src/webhooks/log/health.repository.ts) and one small
    // indexed count per row for its backlog (src/webhooks/delivery/backlog.ts): for 25 rows, 27 statements and
    // no cache. (Before `health`, each row polled three queries of its own: 75 requests per 10 s.)
    refetchInterval: 10_000,
  });
  const boards = useBoards();
  const boardName = (id: string) => boards.data?.find((b) => b.id === id)?.name ?? id;
  const rows = subscriptions.data?.pages.flatMap((p) => p.edges.map((e) => e.node)) ?? [];

  return (
    <>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <ol>
          <li>Settings</li>
          <li>Apps</li>
          <li aria-current="page">Webhooks</li>
        </ol>
      </nav>
      <PageHeading description="Webhooks send signed HTTPS requests, or messages to your queue or event bus, when tickets change.">Webhooks</PageHeading>
      <div className="toolbar">
        <WebhookFormDialog />
      </div>
      <ErrorAlert error={subscriptions.error} prefix="The webhooks could not be loaded." />
      {subscriptions.isPending && <p role="status">Loading webhooks…</p>}
      {subscriptions.isSuccess && rows.length === 0 && <p>No webhooks yet. Create one with New webhook.</p>}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table className="responsive-table">
            <caption className="visually-hidden">Webhook subscriptions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Destination</th>
                <th scope="col">Condition</th>
                <th scope="col">Events</th>
                <th scope="col">Boards</th>
                <th scope="col">Failures in a row</th>
                <th scope="col">Health</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((s) => (
                <tr key={s.id}>
                  <th scope="row" data-label="Destination">
                    <span className="muted block">{destinationTypeName(s.destination.type)}</span>
                    <Link href={`/webhooks/${s.id}`} className="url-link">
                      {s.url}
                    </Link>
                    {s.description && <span className="muted block">{s.description}</span>}
                  </th>
                  <td data-label="Condition">
                    <HealthBadge subscription={s} />
                  </td>
                  <td data-label="Events">
                    <ul className="tags">
                      {s.events.map((e) => (
                        <li key={e}>{e}</li>
                      ))}
                    </ul>
                  </td>
                  <td data-label="Boards">{s.boards.length ? s.boards.map(boardName).join(', ') : 'Every board'}</td>
                  <td data-label="Failures in a row">{s.consecutiveFailures}</td>
                  <td data-label="Health">
                    <HealthFacts subscription={s} compact />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {subscriptions.hasNextPage && (
        <Button className="button" onPress={() => subscriptions.fetchNextPage()} isPending={subscriptions.isFetchingNextPage}>
          Show more webhooks
        </Button>
      )}
    </>
  );
}
