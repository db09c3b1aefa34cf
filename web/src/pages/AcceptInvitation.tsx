// /settings/invitation#<token>: the invited person chooses their name and password, then is signed
// in. The token stays in the address's fragment, which the browser never sends to a server.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, FieldError, Form, Input, Label, Text, TextField } from 'react-aria-components';
import { fieldErrorsByName, gql, gqlGet } from '../api/client.ts';
import { ACCEPT_INVITATION, INVITATION_PREVIEW } from '../api/operations.ts';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { useSignIn } from '../session.tsx';
import { formText } from '../form.ts';

export function AcceptInvitationPage() {
  const [token] = useState(() => window.location.hash.slice(1));
  const preview = useQuery({ queryKey: ['invitation', token], queryFn: async () => (await gqlGet(INVITATION_PREVIEW, { token })).invitation, retry: false });
  const signIn = useSignIn();
  const [error, setError] = useState<unknown>(null);
  const [pending, setPending] = useState(false);
  const errors = fieldErrorsByName(error);
  return (
    <main className="centered">
      <div className="card sign-in">
        <PageHeading description={preview.data ? `Join ${preview.data.workspace.name} as ${preview.data.role.name}.` : 'An invitation to a workspace.'}>
          Accept the invitation
        </PageHeading>
        {preview.isPending && <p role="status">Checking the link…</p>}
        <ErrorAlert error={preview.error} />
        {preview.data && (
          <Form
            validationBehavior="aria"
            onSubmit={async (e) => {
              e.preventDefault();
              const data = new FormData(e.currentTarget);
              const password = formText(data, 'password');
              setPending(true);
              setError(null);
              try {
                const { acceptInvitation } = await gql(ACCEPT_INVITATION, { token, fullName: formText(data, 'fullName').trim(), password });
                window.history.replaceState(null, '', '/settings/');
                await signIn(acceptInvitation.email, password, acceptInvitation.workspace.domain);
              } catch (err) {
                setError(err);
                setPending(false);
              }
            }}
          >
            <TextField value={preview.data.email} isReadOnly className="field">
              <Label>E-mail</Label>
              <Input />
            </TextField>
            <TextField name="fullName" isRequired maxLength={200} autoComplete="name" className="field" autoFocus isInvalid={!!errors.fullName}>
              <Label>Your name</Label>
              <Input />
              <FieldError>{errors.fullName}</FieldError>
            </TextField>
            <TextField name="password" type="password" isRequired minLength={12} maxLength={1024} autoComplete="new-password" className="field" isInvalid={!!errors.password}>
              <Label>Password</Label>
              <Input />
              <Text slot="description">At least 12 characters.</Text>
              <FieldError>{errors.password}</FieldError>
            </TextField>
            <ErrorAlert error={error} fieldLabels={{ fullName: 'Your name', password: 'Password' }} />
            <Button type="submit" className="button button-primary" isPending={pending}>
              Join the workspace
            </Button>
          </Form>
        )}
      </div>
    </main>
  );
}
