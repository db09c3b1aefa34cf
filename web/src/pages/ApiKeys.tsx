// Settings › Apps › API keys: the workspace's keys, New key (value shown once), revoke.
import { useMemo, useState } from 'react';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Button,
  Checkbox,
  CheckboxGroup,
  Dialog,
  DialogTrigger,
  FieldError,
  Form,
  Heading,
  Input,
  Label,
  ListBox,
  ListBoxItem,
  Modal,
  ModalOverlay,
  Popover,
  Select,
  SelectValue,
  Text,
  TextField,
} from 'react-aria-components';
import { fieldErrorsByName, gql } from '../api/client.ts';
import { API_KEYS, API_SCOPES, CREATE_API_KEY, REVOKE_API_KEY, ROLES, type ApiKey } from '../api/operations.ts';
import { useAnnounce } from '../components/Announcer.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { SecretReveal } from '../components/SecretReveal.tsx';
import { formatDate, formatDateTime } from '../format.ts';
import { formText } from '../form.ts';

const PAGE_SIZE = 25;

function keyStatus(key: ApiKey): { label: string; tone: string } {
  if (key.revokedAt) return { label: `Revoked ${formatDate(key.revokedAt)}`, tone: 'muted' };
  if (key.expiresAt && new Date(key.expiresAt) <= new Date()) return { label: 'Expired', tone: 'muted' };
  return { label: 'Active', tone: 'ok' };
}

export function ApiKeysPage() {
  const keys = useInfiniteQuery({
    queryKey: ['apiKeys'],
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam }) => (await gql(API_KEYS, { first: PAGE_SIZE, after: pageParam })).apiKeys,
    getNextPageParam: (last) => (last.pageInfo.hasNextPage ? last.pageInfo.endCursor : null),
  });
  const rows = keys.data?.pages.flatMap((p) => p.edges.map((e) => e.node)) ?? [];

  return (
    <>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <ol>
          <li>Settings</li>
          <li>Apps</li>
          <li aria-current="page">API keys</li>
        </ol>
      </nav>
      <PageHeading description="Keys let other systems use the public API as a service account with the role and scopes you choose.">
        API keys
      </PageHeading>
      <div className="toolbar">
        <NewKeyDialog />
      </div>
      <ErrorAlert error={keys.error} prefix="The keys could not be loaded." />
      {keys.isPending && <p role="status">Loading keys…</p>}
      {keys.isSuccess && rows.length === 0 && <p>No keys yet. Create one with New key.</p>}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table className="responsive-table">
            <caption className="visually-hidden">API keys of the workspace, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Role</th>
                <th scope="col">Scopes</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((key) => {
                const status = keyStatus(key);
                return (
                  <tr key={key.id}>
                    <th scope="row" data-label="Name">
                      {key.name}
                    </th>
                    <td data-label="Prefix">
                      <code>{key.prefix}</code>
                    </td>
                    <td data-label="Role">{key.role.name}</td>
                    <td data-label="Scopes">
                      <ul className="tags">
                        {key.scopes.map((s) => (
                          <li key={s}>{s}</li>
                        ))}
                      </ul>
                    </td>
                    <td data-label="Expires">{formatDate(key.expiresAt, 'Never')}</td>
                    <td data-label="Last used">{formatDateTime(key.lastUsedAt, 'Never')}</td>
                    <td data-label="Status">
                      <span className={`badge badge-${status.tone}`}>{status.label}</span>
                    </td>
                    <td data-label="Actions">{!key.revokedAt && <RevokeKey apiKey={key} />}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {keys.hasNextPage && (
        <Button className="button" onPress={() => keys.fetchNextPage()} isPending={keys.isFetchingNextPage}>
          Show more keys
        </Button>
      )}
    </>
  );
}

function RevokeKey({ apiKey }: { apiKey: ApiKey }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  return (
    <ConfirmDialog
      label="Revoke"
      ariaLabel={`Revoke ${apiKey.name}`}
      title={`Revoke the key “${apiKey.name}”?`}
      confirmLabel="Revoke key"
      onConfirm={async () => {
        await gql(REVOKE_API_KEY, { id: apiKey.id });
        await queryClient.invalidateQueries({ queryKey: ['apiKeys'] });
        announce(`The key ${apiKey.name} is revoked.`);
      }}
    >
      <p>
        Every request made with <code>{apiKey.prefix}…</code> is refused from now on. Systems that use it stop working until they
        get a new key. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}

function NewKeyDialog() {
  // While the new key's value is shown, only the dialog's Done button closes it.
  const [showsSecret, setShowsSecret] = useState(false);
  return (
    <DialogTrigger onOpenChange={() => setShowsSecret(false)}>
      <Button className="button button-primary">New key</Button>
      <ModalOverlay className="modal-overlay" isDismissable={false} isKeyboardDismissDisabled={showsSecret}>
        <Modal className="modal">
          <Dialog className="dialog">{({ close }) => <NewKeyForm close={close} onSecretShown={() => setShowsSecret(true)} />}</Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}

/** The end of the chosen day in the browser's time zone. */
const endOfDay = (date: string) => new Date(`${date}T23:59:59`).toISOString();
const today = () => new Date().toLocaleDateString('en-CA');

function NewKeyForm({ close, onSecretShown }: { close: () => void; onSecretShown: () => void }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const roles = useQuery({ queryKey: ['roles'], queryFn: async () => (await gql(ROLES)).roles });
  const [roleId, setRoleId] = useState<number | null>(null);
  const [scopes, setScopes] = useState<string[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [pending, setPending] = useState(false);
  const [created, setCreated] = useState<{ name: string; value: string } | null>(null);
  // What the form finds missing itself, before sending (the server would refuse it as well).
  const [missing, setMissing] = useState<Record<string, string>>({});
  // The server's message per field, kept on the field until the next submit (react-aria's own
  // server errors vanish on blur, moving the button under a pointer that is about to click it).
  // The server names the role `roleId`; the form's field is `role`.
  const fieldErrors = useMemo(() => {
    const byName = fieldErrorsByName(error);
    if (byName.roleId && !byName.role) byName.role = byName.roleId;
    return { ...byName, ...missing };
  }, [error, missing]);

  if (created) {
    return (
      <>
        <Heading slot="title">Key “{created.name}” created</Heading>
        <SecretReveal
          label="Key value"
          value={created.value}
          warning={
            <>
              <strong>Copy the key now.</strong> It is shown only this once: the service keeps only a fingerprint of it. If it
              is lost, revoke it and create another.
            </>
          }
          onDone={close}
        />
      </>
    );
  }

  return (
    <>
      <Heading slot="title">New key</Heading>
      <Form
        // The server checks every field and says what is wrong, shown on the fields below.
        validationBehavior="aria"
        onSubmit={async (e) => {
          e.preventDefault();
          const data = new FormData(e.currentTarget);
          const name = formText(data, 'name').trim();
          const expires = formText(data, 'expiresAt');
          const found: Record<string, string> = {};
          if (roleId === null) found.role = 'Choose a role.';
          if (scopes.length === 0) found.scopes = 'Choose at least one scope.';
          setMissing(found);
          if (roleId === null || Object.keys(found).length > 0) {
            setError(null);
            return;
          }
          setPending(true);
          setError(null);
          try {
            const { createApiKey } = await gql(CREATE_API_KEY, {
              input: { name, roleId, scopes, expiresAt: expires ? endOfDay(expires) : null },
            });
            await queryClient.invalidateQueries({ queryKey: ['apiKeys'] });
            setCreated({ name: createApiKey.apiKey.name, value: createApiKey.value });
            onSecretShown();
            announce(`The key ${createApiKey.apiKey.name} is created. Copy its value now.`);
          } catch (err) {
            setError(err);
          } finally {
            setPending(false);
          }
        }}
      >
        <TextField name="name" isInvalid={!!fieldErrors.name} isRequired maxLength={100} className="field" autoFocus>
          <Label>Name</Label>
          <Input />
          <Text slot="description">What uses the key, for example “Zapier” or “Nightly export”.</Text>
          <FieldError>{fieldErrors.name}</FieldError>
        </TextField>
        <Select
          name="role"
          isInvalid={!!fieldErrors.role}
          isRequired
          className="field"
          value={roleId}
          onChange={(key) => {
            setRoleId(key === null ? null : Number(key));
            setMissing(({ role: _, ...rest }) => rest);
          }}
          placeholder={roles.isPending ? 'Loading roles…' : 'Choose a role'}
        >
          <Label>Role</Label>
          <Button className="select-button">
            <SelectValue />
            <span aria-hidden="true">▾</span>
          </Button>
          <Text slot="description">The key sees and changes what a person with this role could.</Text>
          <FieldError>{fieldErrors.role}</FieldError>
          <Popover className="popover">
            <ListBox items={roles.data ?? []} className="listbox">
              {(role) => (
                <ListBoxItem id={role.id} className="listbox-item" textValue={role.name}>
                  {role.name}
                </ListBoxItem>
              )}
            </ListBox>
          </Popover>
        </Select>
        <ErrorAlert error={roles.error} prefix="The roles could not be loaded." />
        <CheckboxGroup name="scopes" isInvalid={!!fieldErrors.scopes} isRequired value={scopes}
          onChange={(value) => {
            setScopes(value);
            setMissing(({ scopes: _, ...rest }) => rest);
          }}
          className="field"
        >
          <Label>Scopes</Label>
          <Text slot="description">Only what the integration needs.</Text>
          <div className="checkbox-grid">
            {API_SCOPES.map((scope) => (
              <Checkbox key={scope.id} value={scope.id} className="checkbox">
                <span className="checkbox-box" aria-hidden="true" />
                <span>
                  <code>{scope.id}</code> <span className="muted">{scope.label}</span>
                </span>
              </Checkbox>
            ))}
          </div>
          <FieldError>{fieldErrors.scopes}</FieldError>
        </CheckboxGroup>
        <TextField name="expiresAt" isInvalid={!!fieldErrors.expiresAt} type="date" className="field">
          <Label>Expires (optional)</Label>
          <Input min={today()} />
          <Text slot="description">The key stops working at the end of this day. Leave empty for no expiry.</Text>
          <FieldError>{fieldErrors.expiresAt}</FieldError>
        </TextField>
        <ErrorAlert error={error} fieldLabels={{ name: 'Name', role: 'Role', roleId: 'Role', scopes: 'Scopes', expiresAt: 'Expires' }} />
        <div className="dialog-actions">
          <Button className="button" onPress={close} isDisabled={pending}>
            Cancel
          </Button>
          <Button type="submit" className="button button-primary" isPending={pending}>
            Create key
          </Button>
        </div>
      </Form>
    </>
  );
}
