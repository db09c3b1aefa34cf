// Settings › Workspace › Boards: every board with its fields, states and priorities; New board,
// rename, archive (no new tickets; its tickets stay) and unarchive. Administrators only.
import { useState } from 'react';
import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Dialog, DialogTrigger, FieldError, Form, Heading, Input, Label, Modal, ModalOverlay, Text, TextArea, TextField } from 'react-aria-components';
import { fieldErrorsByName, gql } from '../api/client.ts';
import { ADMIN_BOARDS, ARCHIVE_BOARD, CREATE_BOARD, UNARCHIVE_BOARD, UPDATE_BOARD, type AdminBoard } from '../api/operations.ts';
import type { CreateBoardInput, FieldType, StateCategory } from '../gql/graphql.ts';
import { useAnnounce } from '../components/Announcer.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { formatDate } from '../format.ts';
import { formText } from '../form.ts';

const PAGE_SIZE = 100;
const FIELD_TYPES = ['text', 'number', 'boolean', 'date', 'select', 'multiselect'];
const CATEGORIES = ['open', 'pending', 'solved', 'closed'];

export function useAllBoards() {
  return useInfiniteQuery({
    queryKey: ['adminBoards'],
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam }) => (await gql(ADMIN_BOARDS, { first: PAGE_SIZE, after: pageParam })).boards,
    getNextPageParam: (last) => (last.pageInfo.hasNextPage ? last.pageInfo.endCursor : null),
  });
}

export function BoardsPage() {
  const boards = useAllBoards();
  const rows = boards.data?.pages.flatMap((p) => p.edges.map((e) => e.node)) ?? [];
  return (
    <>
      <PageHeading description="Boards hold tickets: each defines its priorities, states and custom fields. An archived board keeps its tickets and takes no new ones.">
        Boards
      </PageHeading>
      <div className="toolbar">
        <NewBoardDialog />
      </div>
      <ErrorAlert error={boards.error} prefix="The boards could not be loaded." />
      {boards.isPending && <p role="status">Loading boards…</p>}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table className="responsive-table">
            <caption className="visually-hidden">Boards of the workspace, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Priorities</th>
                <th scope="col">States</th>
                <th scope="col">Custom fields</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((b) => (
                <tr key={b.id}>
                  <th scope="row" data-label="Name">
                    {b.name}
                    <div className="muted">
                      <code>{b.id}</code>
                    </div>
                  </th>
                  <td data-label="Priorities">{b.priorities.join(', ')}</td>
                  <td data-label="States">{b.states.map((s) => `${s.name} (${s.category})`).join(', ')}</td>
                  <td data-label="Custom fields">
                    {b.fields.length === 0 ? (
                      <span className="muted">None</span>
                    ) : (
                      <ul className="tags">
                        {b.fields.map((f) => (
                          <li key={f.id}>
                            {f.name} <span className="muted">{f.type}{f.required ? ', required' : ''}</span>
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                  <td data-label="Status">
                    {b.archivedAt ? <span className="badge badge-muted">Archived {formatDate(b.archivedAt)}</span> : <span className="badge badge-ok">Open</span>}
                  </td>
                  <td data-label="Actions">
                    <div className="row-actions">
                      <RenameBoard board={b} />
                      <ArchiveBoard board={b} />
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {boards.hasNextPage && (
        <Button className="button" onPress={() => boards.fetchNextPage()} isPending={boards.isFetchingNextPage}>
          Show more boards
        </Button>
      )}
    </>
  );
}

function ArchiveBoard({ board }: { board: AdminBoard }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const archived = !!board.archivedAt;
  return (
    <ConfirmDialog
      label={archived ? 'Unarchive' : 'Archive'}
      ariaLabel={`${archived ? 'Unarchive' : 'Archive'} ${board.name}`}
      title={archived ? `Open “${board.name}” for new tickets?` : `Archive “${board.name}”?`}
      confirmLabel={archived ? 'Unarchive board' : 'Archive board'}
      danger={!archived}
      onConfirm={async () => {
        if (archived) await gql(UNARCHIVE_BOARD, { id: board.id });
        else await gql(ARCHIVE_BOARD, { id: board.id });
        await queryClient.invalidateQueries({ queryKey: ['adminBoards'] });
        announce(archived ? `The board ${board.name} takes new tickets again.` : `The board ${board.name} is archived.`);
      }}
    >
      <p>
        {archived
          ? 'People and keys can create tickets on it again.'
          : 'No new tickets can be created on it. Its tickets stay readable and can still be changed; webhook and role filters that name it stay valid.'}
      </p>
    </ConfirmDialog>
  );
}

function RenameBoard({ board }: { board: AdminBoard }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const [error, setError] = useState<unknown>(null);
  return (
    <DialogTrigger onOpenChange={() => setError(null)}>
      <Button className="button" aria-label={`Rename ${board.name}`}>
        Rename
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable>
        <Modal className="modal">
          <Dialog className="dialog">
            {({ close }) => (
              <>
                <Heading slot="title">Rename “{board.name}”</Heading>
                <Form
                  validationBehavior="aria"
                  onSubmit={async (e) => {
                    e.preventDefault();
                    const data = new FormData(e.currentTarget);
                    try {
                      await gql(UPDATE_BOARD, { id: board.id, input: { name: formText(data, 'name').trim(), description: formText(data, 'description').trim() || null } });
                      await queryClient.invalidateQueries({ queryKey: ['adminBoards'] });
                      announce(`The board is now called ${formText(data, 'name').trim()}.`);
                      close();
                    } catch (err) {
                      setError(err);
                    }
                  }}
                >
                  <TextField name="name" defaultValue={board.name} isRequired maxLength={100} className="field" autoFocus isInvalid={!!fieldErrorsByName(error).name}>
                    <Label>Name</Label>
                    <Input />
                    <FieldError>{fieldErrorsByName(error).name}</FieldError>
                  </TextField>
                  <TextField name="description" defaultValue={board.description ?? ''} maxLength={1000} className="field">
                    <Label>Description (optional)</Label>
                    <Input />
                  </TextField>
                  <ErrorAlert error={error} fieldLabels={{ name: 'Name', description: 'Description' }} />
                  <div className="dialog-actions">
                    <Button className="button" onPress={close}>
                      Cancel
                    </Button>
                    <Button type="submit" className="button button-primary">
                      Save
                    </Button>
                  </div>
                </Form>
              </>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}

const lines = (text: string) => text.split('\n').map((l) => l.trim()).filter(Boolean);

/** "Name (category)" per line; a line ending in `*` is the initial state (none: the first). */
function parseStates(text: string): CreateBoardInput['states'] {
  return lines(text).map((line) => {
    const initial = line.endsWith('*');
    const m = /^(.*?)\s*\((\w+)\)\s*\*?$/.exec(line);
    const name = (m ? m[1] : line.replace(/\*$/, '')).trim();
    const category = (m && CATEGORIES.includes(m[2]) ? m[2] : 'open') as StateCategory;
    return { name, category, initial };
  });
}

/** "Name: type" per line, then `required` and/or `options a | b`, comma-separated. */
function parseFields(text: string): NonNullable<CreateBoardInput['fields']> {
  return lines(text).map((line) => {
    const [name, rest = 'text'] = line.split(':', 2).map((p) => p.trim()) as [string, string?];
    const parts = rest.split(',').map((p) => p.trim());
    const type = (FIELD_TYPES.includes(parts[0]) ? parts[0] : parts[0] || 'text') as FieldType;
    const options = parts.find((p) => p.startsWith('options'))?.slice('options'.length).split('|').map((o) => o.trim()).filter(Boolean);
    return { name, type, required: parts.includes('required'), ...(options && { options }) };
  });
}

function NewBoardDialog() {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const [error, setError] = useState<unknown>(null);
  const [pending, setPending] = useState(false);
  const errors = fieldErrorsByName(error);
  return (
    <DialogTrigger onOpenChange={() => setError(null)}>
      <Button className="button button-primary">New board</Button>
      <ModalOverlay className="modal-overlay" isDismissable={!pending}>
        <Modal className="modal">
          <Dialog className="dialog">
            {({ close }) => (
              <>
                <Heading slot="title">New board</Heading>
                <Form
                  validationBehavior="aria"
                  onSubmit={async (e) => {
                    e.preventDefault();
                    const data = new FormData(e.currentTarget);
                    setPending(true);
                    setError(null);
                    try {
                      const { createBoard } = await gql(CREATE_BOARD, {
                        input: {
                          name: formText(data, 'name').trim(),
                          description: formText(data, 'description').trim() || null,
                          priorities: formText(data, 'priorities').split(',').map((p) => p.trim()).filter(Boolean),
                          states: parseStates(formText(data, 'states')),
                          fields: parseFields(formText(data, 'fields')),
                        },
                      });
                      await queryClient.invalidateQueries({ queryKey: ['adminBoards'] });
                      announce(`The board ${createBoard.name} is created.`);
                      close();
                    } catch (err) {
                      setError(err);
                    } finally {
                      setPending(false);
                    }
                  }}
                >
                  <TextField name="name" isRequired maxLength={100} className="field" autoFocus isInvalid={!!errors.name}>
                    <Label>Name</Label>
                    <Input />
                    <FieldError>{errors.name}</FieldError>
                  </TextField>
                  <TextField name="description" maxLength={1000} className="field">
                    <Label>Description (optional)</Label>
                    <Input />
                  </TextField>
                  <TextField name="priorities" isRequired defaultValue="low, normal, high, urgent" className="field" isInvalid={!!errors.priorities}>
                    <Label>Priorities</Label>
                    <Input />
                    <Text slot="description">Comma-separated, lowest first; a ticket without one gets the first.</Text>
                    <FieldError>{errors.priorities}</FieldError>
                  </TextField>
                  <TextField name="states" isRequired defaultValue={'New (open) *\nIn progress (open)\nWaiting (pending)\nSolved (solved)\nClosed (closed)'} className="field" isInvalid={!!errors.states}>
                    <Label>States</Label>
                    <TextArea rows={5} />
                    <Text slot="description">One a line: a name and its category (open, pending, solved or closed) in brackets; mark the state new tickets start in with *.</Text>
                    <FieldError>{errors.states}</FieldError>
                  </TextField>
                  <TextField name="fields" className="field" isInvalid={!!errors.fields}>
                    <Label>Custom fields (optional)</Label>
                    <TextArea rows={3} placeholder={'Product: select, required, options Web | Mobile\nOrder number: text'} />
                    <Text slot="description">One a line: a name, a colon and its type (text, number, boolean, date, select, multiselect), then “required” and, for select types, “options a | b”.</Text>
                    <FieldError>{errors.fields}</FieldError>
                  </TextField>
                  <ErrorAlert error={error} fieldLabels={{ name: 'Name', priorities: 'Priorities', states: 'States', fields: 'Custom fields' }} />
                  <div className="dialog-actions">
                    <Button className="button" onPress={close} isDisabled={pending}>
                      Cancel
                    </Button>
                    <Button type="submit" className="button button-primary" isPending={pending}>
                      Create board
                    </Button>
                  </div>
                </Form>
              </>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}
