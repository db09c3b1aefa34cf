// Settings › Workspace › Roles: what each role may do and which boards it sees. The built-in
// roles are shown as they are; custom roles are made and changed here, and a change reaches every
// person and key with the role at their next request. Administrators only.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Checkbox, CheckboxGroup, Dialog, DialogTrigger, FieldError, Form, Heading, Input, Label, Modal, ModalOverlay, Text, TextField } from 'react-aria-components';
import { fieldErrorsByName, gql } from '../api/client.ts';
import { ADMIN_ROLES, CREATE_ROLE, ROLE_PERMISSIONS, UPDATE_ROLE, type AdminBoard, type AdminRole } from '../api/operations.ts';
import { useAnnounce } from '../components/Announcer.tsx';
import { ChoiceSelect } from '../components/ChoiceSelect.tsx';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { useAllBoards } from './Boards.tsx';
import { formText } from '../form.ts';

export const useRoles = () => useQuery({ queryKey: ['adminRoles'], queryFn: async () => (await gql(ADMIN_ROLES)).roles });

export function RolesPage() {
  const roles = useRoles();
  const boards = useAllBoards();
  const allBoards = boards.data?.pages.flatMap((p) => p.edges.map((e) => e.node)) ?? [];
  const boardName = (id: string) => allBoards.find((b) => b.id === id)?.name ?? id;
  return (
    <>
      <PageHeading description="A role decides what its people and API keys may do and which boards they see. Changes apply at their next request.">Roles</PageHeading>
      <div className="toolbar">
        <RoleDialog boards={allBoards} />
      </div>
      <ErrorAlert error={roles.error ?? boards.error} prefix="The roles could not be loaded." />
      {roles.isPending && <p role="status">Loading roles…</p>}
      {roles.data && (
        <div className="table-wrap">
          <table className="responsive-table">
            <caption className="visually-hidden">Roles of the workspace</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">May</th>
                <th scope="col">Sees</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {roles.data.map((r) => (
                <tr key={r.id}>
                  <th scope="row" data-label="Name">
                    {r.name} {r.builtIn && <span className="badge badge-muted">Built-in</span>}
                  </th>
                  <td data-label="May">
                    {r.isAdmin ? (
                      'Everything, administration included'
                    ) : r.permissions.length ? (
                      <ul className="tags">
                        {r.permissions.map((p) => (
                          <li key={p}>{ROLE_PERMISSIONS.find((k) => k.id === p)?.label ?? p}</li>
                        ))}
                      </ul>
                    ) : (
                      'Read only'
                    )}
                  </td>
                  <td data-label="Sees">{r.isAdmin || r.allBoards ? 'Every board' : r.boardIds.length ? r.boardIds.map(boardName).join(', ') : 'No board'}</td>
                  <td data-label="Actions">{!r.builtIn && <RoleDialog role={r} boards={allBoards} />}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** New role, or editing `role`. */
function RoleDialog({ role, boards }: { role?: AdminRole; boards: AdminBoard[] }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const [error, setError] = useState<unknown>(null);
  const [pending, setPending] = useState(false);
  const [isAdmin, setAdmin] = useState(role?.isAdmin ?? false);
  const [permissions, setPermissions] = useState<string[]>(role?.permissions ?? []);
  const [scope, setScope] = useState(role && !role.allBoards ? 'some' : role ? 'all' : 'some');
  const [boardIds, setBoardIds] = useState<string[]>(role?.boardIds ?? []);
  const errors = fieldErrorsByName(error);
  const title = role ? `Edit “${role.name}”` : 'New role';
  return (
    <DialogTrigger onOpenChange={() => setError(null)}>
      <Button className={role ? 'button' : 'button button-primary'} aria-label={role ? `Edit ${role.name}` : undefined}>
        {role ? 'Edit' : 'New role'}
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable={!pending}>
        <Modal className="modal">
          <Dialog className="dialog">
            {({ close }) => (
              <>
                <Heading slot="title">{title}</Heading>
                <Form
                  validationBehavior="aria"
                  onSubmit={async (e) => {
                    e.preventDefault();
                    const name = formText(new FormData(e.currentTarget), 'name').trim();
                    const input = { name, isAdmin, permissions, allBoards: scope === 'all', boardIds: scope === 'all' ? [] : boardIds };
                    setPending(true);
                    setError(null);
                    try {
                      if (role) await gql(UPDATE_ROLE, { id: role.id, input });
                      else await gql(CREATE_ROLE, { input });
                      await queryClient.invalidateQueries({ queryKey: ['adminRoles'] });
                      await queryClient.invalidateQueries({ queryKey: ['roles'] });
                      announce(role ? `The role ${name} is saved.` : `The role ${name} is created.`);
                      close();
                    } catch (err) {
                      setError(err);
                    } finally {
                      setPending(false);
                    }
                  }}
                >
                  <TextField name="name" defaultValue={role?.name} isRequired maxLength={100} className="field" autoFocus isInvalid={!!errors.name}>
                    <Label>Name</Label>
                    <Input />
                    <FieldError>{errors.name}</FieldError>
                  </TextField>
                  <Checkbox className="checkbox" isSelected={isAdmin} onChange={setAdmin}>
                    <span className="checkbox-box" aria-hidden="true" />
                    <span>Administrator: may do everything, including managing keys, boards, roles and people</span>
                  </Checkbox>
                  {!isAdmin && (
                    <CheckboxGroup value={permissions} onChange={setPermissions} className="field">
                      <Label>May also</Label>
                      <Text slot="description">Beyond reading what the role sees.</Text>
                      <div className="checkbox-grid">
                        {ROLE_PERMISSIONS.map((p) => (
                          <Checkbox key={p.id} value={p.id} className="checkbox">
                            <span className="checkbox-box" aria-hidden="true" />
                            <span>{p.label}</span>
                          </Checkbox>
                        ))}
                      </div>
                    </CheckboxGroup>
                  )}
                  {!isAdmin && (
                    <ChoiceSelect
                      label="Sees"
                      value={scope}
                      onChange={setScope}
                      choices={[
                        { id: 'all', name: 'Every board' },
                        { id: 'some', name: 'Only the boards chosen below' },
                      ]}
                    />
                  )}
                  {!isAdmin && scope === 'some' && (
                    <CheckboxGroup value={boardIds} onChange={setBoardIds} className="field" isInvalid={!!errors.boardIds}>
                      <Label>Boards</Label>
                      <div className="checkbox-grid">
                        {boards.map((b) => (
                          <Checkbox key={b.id} value={b.id} className="checkbox">
                            <span className="checkbox-box" aria-hidden="true" />
                            <span>
                              {b.name}
                              {b.archivedAt && <span className="muted"> (archived)</span>}
                            </span>
                          </Checkbox>
                        ))}
                      </div>
                      <FieldError>{errors.boardIds}</FieldError>
                    </CheckboxGroup>
                  )}
                  <ErrorAlert error={error} fieldLabels={{ name: 'Name', boardIds: 'Boards', permissions: 'May also' }} />
                  <div className="dialog-actions">
                    <Button className="button" onPress={close} isDisabled={pending}>
                      Cancel
                    </Button>
                    <Button type="submit" className="button button-primary" isPending={pending}>
                      {role ? 'Save role' : 'Create role'}
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
