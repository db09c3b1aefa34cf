import { useState } from 'react';
import { Button, FieldError, Form, Input, Label, TextField } from 'react-aria-components';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { useSignIn } from '../session.tsx';
import { formText } from '../form.ts';

export function SignInPage() {
  const signIn = useSignIn();
  const [error, setError] = useState<unknown>(null);
  const [pending, setPending] = useState(false);
  return (
    <main className="centered">
      <div className="card sign-in">
        <PageHeading description="Settings of your workspace: API keys, webhooks and notifications.">Sign in</PageHeading>
        <Form
          onSubmit={async (e) => {
            e.preventDefault();
            const data = new FormData(e.currentTarget);
            setPending(true);
            setError(null);
            try {
              await signIn(formText(data, 'email'), formText(data, 'password'));
            } catch (err) {
              setError(err);
              setPending(false);
            }
          }}
        >
          <TextField name="email" type="email" isRequired autoComplete="username" className="field">
            <Label>E-mail</Label>
            {/* A new attempt starts clean: "fill out this field" never stands beside the last answer's "wrong password". */}
            <Input onInvalid={() => setError(null)} />
            <FieldError />
          </TextField>
          <TextField name="password" type="password" isRequired autoComplete="current-password" className="field">
            <Label>Password</Label>
            <Input onInvalid={() => setError(null)} />
            <FieldError />
          </TextField>
          <ErrorAlert error={error} />
          <Button type="submit" className="button button-primary" isPending={pending}>
            Sign in
          </Button>
        </Form>
      </div>
    </main>
  );
}
