// The audit log (administrators): who did which administrative action, when, from where, and the
// fields it changed; newest first, filtered by action, older entries on demand.
import { useState } from 'react';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { gql } from '../api/client.ts';
import { AUDIT_ACTIONS, AUDIT_LOG, type AuditEntry } from '../api/operations.ts';
import { ChoiceSelect } from '../components/ChoiceSelect.tsx';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { formatDateTime } from '../format.ts';

const PAGE_SIZE = 50;
const ALL = 'all';

const ACTOR_KINDS: Record<string, string> = { person: 'Person', api_key: 'API key', operator: 'Operator' };

const show = (v: unknown) => (v === null || v === undefined ? '–' : typeof v === 'string' ? v : JSON.stringify(v));

function Changes({ changes }: { changes: AuditEntry['changes'] }) {
  if (changes.length === 0) return <span className="muted">–</span>;
  return (
    <ul className="audit-changes">
      {changes.map((c) => (
        <li key={c.field}>
          <code>{c.field}</code>: {show(c.before)} → {show(c.after)}
        </li>
      ))}
    </ul>
  );
}

export function AuditLogPage() {
  const [action, setAction] = useState<string>(ALL);
  const log = useInfiniteQuery({
    queryKey: ['auditLog', action],
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam }) => (await gql(AUDIT_LOG, { first: PAGE_SIZE, after: pageParam, action: action === ALL ? null : action })).auditLog,
    getNextPageParam: (last) => (last.pageInfo.hasNextPage ? last.pageInfo.endCursor : null),
  });
  const rows = log.data?.pages.flatMap((p) => p.edges.map((e) => e.node)) ?? [];
  return (
    <>
      <PageHeading description="Administrative actions in this workspace, newest first: API keys, webhooks, sign-ins, and the operator's commands. Secrets are never recorded.">
        Audit log
      </PageHeading>
      <div className="toolbar filters" role="group" aria-label="Filter the audit log">
        <ChoiceSelect
          className="field field-inline"
          label="Action"
          value={action}
          onChange={setAction}
          choices={[{ id: ALL, name: 'Any action' }, ...AUDIT_ACTIONS.map((a) => ({ id: a, name: a }))]}
        />
      </div>
      <ErrorAlert error={log.error} prefix="The audit log could not be loaded." />
      {log.isPending && <p role="status">Loading the audit log…</p>}
      {log.isSuccess && rows.length === 0 && <p>{action === ALL ? 'No entries yet.' : 'No entries of this action.'}</p>}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table className="responsive-table audit-table">
            <caption className="visually-hidden">Audit log entries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Action</th>
                <th scope="col">Actor</th>
                <th scope="col">Address</th>
                <th scope="col">Target</th>
                <th scope="col">Changes</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((e) => (
                <tr key={e.id}>
                  <td data-label="When">
                    <time dateTime={e.occurredAt}>{formatDateTime(e.occurredAt)}</time>
                  </td>
                  <td data-label="Action">
                    <code>{e.action}</code>
                  </td>
                  <td data-label="Actor">
                    {e.actor.label} <span className="muted">({ACTOR_KINDS[e.actor.type] ?? e.actor.type})</span>
                  </td>
                  <td data-label="Address">{e.address ?? <span className="muted">–</span>}</td>
                  <td data-label="Target">
                    {e.target.type} <code>{e.target.id}</code>
                  </td>
                  <td data-label="Changes">
                    <Changes changes={e.changes} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {log.hasNextPage && (
        <Button className="button" onPress={() => log.fetchNextPage()} isPending={log.isFetchingNextPage}>
          Show older entries
        </Button>
      )}
    </>
  );
}
