// Settings › Workspace › People: who works in the workspace, with which role; invite by e-mail
// (a one-time link, shown once here and e-mailed when e-mail is on), change a person's role,
// deactivate (their sessions end and their keys stop at once) and reactivate. Administrators only.
import { useState } from 'react';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Dialog, DialogTrigger, FieldError, Form, Heading, Input, Label, Modal, ModalOverlay, TextField } from 'react-aria-components';
import { fieldErrorsByName, gql } from '../api/client.ts';
import { CHANGE_USER_ROLE, DEACTIVATE_USER, INVITATIONS, INVITE_USER, PEOPLE, REACTIVATE_USER, REVOKE_INVITATION, type Person } from '../api/operations.ts';
import { useAnnounce } from '../components/Announcer.tsx';
import { ChoiceSelect } from '../components/ChoiceSelect.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { SecretReveal } from '../components/SecretReveal.tsx';
import { formatDate, formatDateTime } from '../format.ts';
import { useSession } from '../session.tsx';
import { useRoles } from './Roles.tsx';
import { formText } from '../form.ts';

const PAGE_SIZE = 50;

export function PeoplePage() {
  const people = useInfiniteQuery({
    queryKey: ['people'],
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam }) => (await gql(PEOPLE, { first: PAGE_SIZE, after: pageParam })).users,
    getNextPageParam: (last) => (last.pageInfo.hasNextPage ? last.pageInfo.endCursor : null),
  });
  const rows = people.data?.pages.flatMap((p) => p.edges.map((e) => e.node)) ?? [];
  const { viewer } = useSession();
  return (
    <>
      <PageHeading description="The people of the workspace and their roles. A deactivated person cannot sign in, and the API keys they made stop working until they are reactivated.">
        People
      </PageHeading>
      <div className="toolbar">
        <InviteDialog />
      </div>
      <ErrorAlert error={people.error} prefix="The people could not be loaded." />
      {people.isPending && <p role="status">Loading people…</p>}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table className="responsive-table">
            <caption className="visually-hidden">People of the workspace, in the order they joined</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((p) => (
                <tr key={p.id}>
                  <th scope="row" data-label="Name">
                    {p.fullName}
                    {p.id === viewer.id && <span className="muted"> (you)</span>}
                  </th>
                  <td data-label="E-mail">{p.email}</td>
                  <td data-label="Role">{p.role.name}</td>
                  <td data-label="Status">
                    {p.deactivatedAt ? <span className="badge badge-muted">Deactivated {formatDate(p.deactivatedAt)}</span> : <span className="badge badge-ok">Active</span>}
                  </td>
                  <td data-label="Actions">
                    <div className="row-actions">
                      <ChangeRole person={p} />
                      {p.id !== viewer.id && <Activation person={p} />}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {people.hasNextPage && (
        <Button className="button" onPress={() => people.fetchNextPage()} isPending={people.isFetchingNextPage}>
          Show more people
        </Button>
      )}
      <PendingInvitations />
    </>
  );
}

function Activation({ person }: { person: Person }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const active = !person.deactivatedAt;
  return (
    <ConfirmDialog
      label={active ? 'Deactivate' : 'Reactivate'}
      ariaLabel={`${active ? 'Deactivate' : 'Reactivate'} ${person.fullName}`}
      title={active ? `Deactivate ${person.fullName}?` : `Reactivate ${person.fullName}?`}
      confirmLabel={active ? 'Deactivate' : 'Reactivate'}
      danger={active}
      onConfirm={async () => {
        if (active) await gql(DEACTIVATE_USER, { id: person.id });
        else await gql(REACTIVATE_USER, { id: person.id });
        await queryClient.invalidateQueries({ queryKey: ['people'] });
        announce(active ? `${person.fullName} is deactivated.` : `${person.fullName} is active again.`);
      }}
    >
      <p>
        {active
          ? 'They are signed out everywhere at once and cannot sign in; the API keys they made stop working. Nothing they made is deleted.'
          : 'They can sign in again, and the API keys they made (unless revoked or expired) work again.'}
      </p>
    </ConfirmDialog>
  );
}

function ChangeRole({ person }: { person: Person }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const roles = useRoles();
  const [roleId, setRoleId] = useState(String(person.roleId));
  const [error, setError] = useState<unknown>(null);
  const [pending, setPending] = useState(false);
  return (
    <DialogTrigger
      onOpenChange={() => {
        setError(null);
        setRoleId(String(person.roleId));
      }}
    >
      <Button className="button" aria-label={`Change role of ${person.fullName}`}>
        Change role
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable={!pending}>
        <Modal className="modal">
          <Dialog className="dialog">
            {({ close }) => (
              <>
                <Heading slot="title">Role of {person.fullName}</Heading>
                <ChoiceSelect label="Role" value={roleId} onChange={setRoleId} choices={(roles.data ?? []).map((r) => ({ id: String(r.id), name: r.name }))} />
                <p className="muted">The new role applies from their next request: boards it does not see disappear at once.</p>
                <ErrorAlert error={error ?? roles.error} />
                <div className="dialog-actions">
                  <Button className="button" onPress={close} isDisabled={pending}>
                    Cancel
                  </Button>
                  <Button
                    className="button button-primary"
                    isPending={pending}
                    onPress={async () => {
                      setPending(true);
                      setError(null);
                      try {
                        const { changeUserRole } = await gql(CHANGE_USER_ROLE, { id: person.id, input: { roleId: Number(roleId) } });
                        await queryClient.invalidateQueries({ queryKey: ['people'] });
                        announce(`${person.fullName} now has the role ${changeUserRole.role.name}.`);
                        close();
                      } catch (err) {
                        setError(err);
                      } finally {
                        setPending(false);
                      }
                    }}
                  >
                    Save role
                  </Button>
                </div>
              </>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}

function PendingInvitations() {
  const invitations = useQuery({ queryKey: ['invitations'], queryFn: async () => (await gql(INVITATIONS)).invitations });
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  if (!invitations.data?.length) return <ErrorAlert error={invitations.error} prefix="The invitations could not be loaded." />;
  return (
    <section aria-labelledby="pending-invitations">
      <h2 id="pending-invitations">Pending invitations</h2>
      <div className="table-wrap">
        <table className="responsive-table">
          <caption className="visually-hidden">Invitations not yet accepted, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Role</th>
              <th scope="col">Link works until</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {invitations.data.map((i) => (
              <tr key={i.id}>
                <th scope="row" data-label="E-mail">
                  {i.email}
                </th>
                <td data-label="Role">{i.role.name}</td>
                <td data-label="Link works until">{formatDateTime(i.expiresAt)}</td>
                <td data-label="Actions">
                  <ConfirmDialog
                    label="Revoke"
                    ariaLabel={`Revoke the invitation of ${i.email}`}
                    title={`Revoke the invitation of ${i.email}?`}
                    confirmLabel="Revoke invitation"
                    onConfirm={async () => {
                      await gql(REVOKE_INVITATION, { id: i.id });
                      await queryClient.invalidateQueries({ queryKey: ['invitations'] });
                      announce(`The invitation of ${i.email} is revoked.`);
                    }}
                  >
                    <p>Its link stops working. You can invite the address again later.</p>
                  </ConfirmDialog>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function InviteDialog() {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const roles = useRoles();
  const [roleId, setRoleId] = useState<string>('');
  const [error, setError] = useState<unknown>(null);
  const [pending, setPending] = useState(false);
  const [sent, setSent] = useState<{ email: string; link: string; emailed: boolean } | null>(null);
  const errors = fieldErrorsByName(error);
  const choices = (roles.data ?? []).map((r) => ({ id: String(r.id), name: r.name }));
  return (
    <DialogTrigger
      onOpenChange={() => {
        setError(null);
        setSent(null);
      }}
    >
      <Button className="button button-primary">Invite person</Button>
      <ModalOverlay className="modal-overlay" isDismissable={!pending && !sent} isKeyboardDismissDisabled={!!sent}>
        <Modal className="modal">
          <Dialog className="dialog">
            {({ close }) =>
              sent ? (
                <>
                  <Heading slot="title">{sent.email} is invited</Heading>
                  <SecretReveal
                    label="Invitation link"
                    value={sent.link}
                    warning={
                      <>
                        {sent.emailed ? 'The link was e-mailed to them. ' : <strong>E-mail is off: send them this link yourself. </strong>}
                        It works once, for 7 days, and is shown only now.
                      </>
                    }
                    onDone={close}
                  />
                </>
              ) : (
                <>
                  <Heading slot="title">Invite a person</Heading>
                  <Form
                    validationBehavior="aria"
                    onSubmit={async (e) => {
                      e.preventDefault();
                      const email = formText(new FormData(e.currentTarget), 'email').trim();
                      const chosen = roleId || choices[0]?.id;
                      if (!chosen) return;
                      setPending(true);
                      setError(null);
                      try {
                        const { inviteUser } = await gql(INVITE_USER, { input: { email, roleId: Number(chosen) } });
                        await queryClient.invalidateQueries({ queryKey: ['invitations'] });
                        setSent({ email: inviteUser.invitation.email, link: inviteUser.link ?? '', emailed: inviteUser.emailed });
                        announce(`${inviteUser.invitation.email} is invited.`);
                      } catch (err) {
                        setError(err);
                      } finally {
                        setPending(false);
                      }
                    }}
                  >
                    <TextField name="email" type="email" isRequired maxLength={254} className="field" autoFocus isInvalid={!!errors.email}>
                      <Label>E-mail</Label>
                      <Input />
                      <FieldError>{errors.email}</FieldError>
                    </TextField>
                    <ChoiceSelect label="Role" value={roleId || choices[0]?.id || ''} onChange={setRoleId} choices={choices} />
                    <ErrorAlert error={error ?? roles.error} fieldLabels={{ email: 'E-mail', roleId: 'Role' }} />
                    <div className="dialog-actions">
                      <Button className="button" onPress={close} isDisabled={pending}>
                        Cancel
                      </Button>
                      <Button type="submit" className="button button-primary" isPending={pending}>
                        Send invitation
                      </Button>
                    </div>
                  </Form>
                </>
              )
            }
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}
