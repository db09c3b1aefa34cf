// Create and edit a webhook subscription: where deliveries go (an HTTPS URL, checked by the server
// with the API's rule, its message shown on the field, or a queue or bus: DestinationFields.tsx), events (ticket events and operational ones), the fields whose
// updates count (with ticket.updated), boards, description, and what the endpoint receives at
// most (attempts in flight, deliveries per second), and the payload (full or thin). Creation shows the secret once.
import { useMemo, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Checkbox, CheckboxGroup, Dialog, DialogTrigger, FieldError, Form, Heading, Input, Label, Modal, ModalOverlay, Text, TextArea, TextField } from 'react-aria-components';
import { fieldErrorsByName, gql, plainMessage, type ResultOf } from '../api/client.ts';
import {
  BOARDS,
  CREATE_WEBHOOK,
  OPERATIONAL_EVENTS,
  UPDATE_WEBHOOK,
  UPDATED_FIELDS,
  WEBHOOK_EVENTS,
  WEBHOOK_LIMITS,
  type BoardSummary,
  type WebhookSubscription,
} from '../api/operations.ts';
import { useAnnounce } from '../components/Announcer.tsx';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { ChoiceSelect } from '../components/ChoiceSelect.tsx';
import { PAYLOAD_CHOICES, PayloadNote, type PayloadChoice } from './PayloadChoice.tsx';
import { SecretReveal } from '../components/SecretReveal.tsx';
import { parseRetryDelays, retryDelaysText } from './retry-schedule-field.ts';
import { formText } from '../form.ts';
import { DESTINATION_CHOICES, DESTINATION_LABELS, DestinationFields, destinationInput, type DestinationKind } from './DestinationFields.tsx';

/** Every board the viewer sees (a workspace has few; pages of 100). */
export function useBoards() {
  return useQuery({
    queryKey: ['boards'],
    queryFn: async () => {
      const boards: BoardSummary[] = [];
      let after: string | null = null;
      for (;;) {
        const page: ResultOf<typeof BOARDS>['boards'] = (await gql(BOARDS, { first: 100, after })).boards;
        boards.push(...page.edges.map((e) => e.node));
        if (!page.pageInfo.hasNextPage) return boards;
        after = page.pageInfo.endCursor;
      }
    },
    staleTime: 60_000,
  });
}

/** The service's bounds (its operator settings), so the form states the rule the server enforces. */
function useWebhookLimits() {
  return useQuery({
    queryKey: ['webhooks', 'limits'],
    queryFn: async () => (await gql(WEBHOOK_LIMITS)).webhookLimits,
    staleTime: Infinity,
  });
}

/** The fields a ticket.updated filter can name: the ticket's own, then each custom field once (a field id may be on several boards' lists). */
export function useFieldChoices(boards: BoardSummary[] | undefined): { id: string; name: string }[] {
  return useMemo(() => {
    const custom = new Map<string, string>();
    for (const board of boards ?? []) for (const f of board.fields) if (!custom.has(f.id)) custom.set(f.id, `${f.name} (${board.name})`);
    return [...UPDATED_FIELDS, ...[...custom].map(([id, name]) => ({ id, name }))];
  }, [boards]);
}

export function WebhookFormDialog({ subscription }: { subscription?: WebhookSubscription }) {
  // While the new signing secret is shown, only the dialog's Done button closes it.
  const [showsSecret, setShowsSecret] = useState(false);
  return (
    <DialogTrigger onOpenChange={() => setShowsSecret(false)}>
      <Button className={subscription ? 'button' : 'button button-primary'}>{subscription ? 'Edit' : 'New webhook'}</Button>
      <ModalOverlay className="modal-overlay" isDismissable={false} isKeyboardDismissDisabled={showsSecret}>
        <Modal className="modal modal-wide">
          <Dialog className="dialog">
            {({ close }) => <WebhookForm subscription={subscription} close={close} onSecretShown={() => setShowsSecret(true)} />}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}

function WebhookForm({ subscription, close, onSecretShown }: { subscription?: WebhookSubscription; close: () => void; onSecretShown: () => void }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const boards = useBoards();
  const limits = useWebhookLimits().data;
  const [events, setEvents] = useState<string[]>(subscription?.events ?? []);
  const [boardIds, setBoardIds] = useState<string[]>(subscription?.boards ?? []);
  const [fields, setFields] = useState<string[]>(subscription?.fields ?? []);
  const [payload, setPayload] = useState<PayloadChoice>(subscription?.payload ?? 'full');
  const [kind, setKind] = useState<DestinationKind>(subscription?.destination.type ?? 'https');
  const fieldChoices = useFieldChoices(boards.data);
  const [error, setError] = useState<unknown>(null);
  const [pending, setPending] = useState(false);
  const [created, setCreated] = useState<ResultOf<typeof CREATE_WEBHOOK>['createWebhookSubscription'] | null>(null);
  // The server's message per field, kept on the field until the next submit (react-aria's own
  // server errors vanish on blur, moving the button under a pointer that is about to click it).
  // What the form finds missing itself, before sending (the server would refuse it as well).
  const [missing, setMissing] = useState<Record<string, string>>({});
  const fieldErrors = useMemo(() => ({ ...fieldErrorsByName(error), ...missing }), [error, missing]);

  if (created) {
    return (
      <>
        <Heading slot="title">Webhook created</Heading>
        <p>
          Deliveries to <code>{created.url}</code> are signed with this secret (Standard Webhooks: the <code>webhook-signature</code>{' '}
          header, or message attribute). Your receiver needs it to verify them.
        </p>
        <SecretReveal
          label="Signing secret"
          value={created.secret}
          warning={
            <>
              <strong>Copy the signing secret now.</strong> It is shown only here and after a rotation; later you can rotate it, not read
              it.
            </>
          }
          onDone={close}
        />
      </>
    );
  }

  return (
    <>
      <Heading slot="title">{subscription ? 'Edit webhook' : 'New webhook'}</Heading>
      <Form
        // The server checks every field and says what is wrong, shown on the fields below.
        validationBehavior="aria"
        onSubmit={async (e) => {
          e.preventDefault();
          const data = new FormData(e.currentTarget);
          const rate = formText(data, 'ratePerSecond').trim();
          const retries = parseRetryDelays(formText(data, 'retrySchedule'));
          const url = formText(data, 'url').trim();
          const destination = kind === 'https' ? undefined : destinationInput(kind, data, subscription?.destination);
          const input = {
            // Either the URL or a broker destination (none when the saved one stays as it is).
            ...(kind === 'https' ? { url } : destination?.input ? { destination: destination.input } : {}),
            description: formText(data, 'description'),
            events,
            boards: boardIds,
            // The filter goes with ticket.updated: without it, none.
            fields: events.includes('ticket.updated') ? fields : [],
            maxInFlight: Number(data.get('maxInFlight') || 10),
            // Empty: no rate bound (null removes one that was set).
            ratePerSecond: rate === '' ? null : Number(rate),
            // Empty: the default schedule (null resets a shorter one).
            retrySchedule: retries === 'invalid' ? null : retries,
            payload,
          };
          const found: Record<string, string> = { ...destination?.missing };
          if (retries === 'invalid') found.retrySchedule = 'Use whole seconds separated by commas, or “none” for no retry.';
          if (kind === 'https' && !/^https:\/\/[^\s/]+/i.test(url)) found.url = plainMessage('url', 'must be https');
          if (events.length === 0) found.events = 'Choose at least one event.';
          setMissing(found);
          if (Object.keys(found).length > 0) {
            setError(null);
            return;
          }
          setPending(true);
          setError(null);
          try {
            if (subscription) {
              await gql(UPDATE_WEBHOOK, { id: subscription.id, input });
              announce('The webhook is saved.');
            } else {
              const { createWebhookSubscription } = await gql(CREATE_WEBHOOK, { input });
              setCreated(createWebhookSubscription);
              onSecretShown();
              announce('The webhook is created. Copy its signing secret now.');
            }
            await queryClient.invalidateQueries({ queryKey: ['webhooks'] });
            if (subscription) close();
          } catch (err) {
            setError(err);
          } finally {
            setPending(false);
          }
        }}
      >
        <ChoiceSelect label="Destination" value={kind} onChange={(id) => setKind(id as DestinationKind)} choices={DESTINATION_CHOICES} />
        <DestinationFields key={kind} kind={kind} current={subscription?.destination} errors={fieldErrors} editing={!!subscription} />
        <CheckboxGroup name="events" isInvalid={!!fieldErrors.events} isRequired
          value={events}
          onChange={(value) => {
            setEvents(value);
            setMissing(({ events: _, ...rest }) => rest);
          }}
          className="field"
        >
          <Label>Events</Label>
          <div className="checkbox-grid">
            {[...WEBHOOK_EVENTS, ...OPERATIONAL_EVENTS].map((event) => (
              <Checkbox key={event.id} value={event.id} className="checkbox">
                <span className="checkbox-box" aria-hidden="true" />
                <span>
                  <code>{event.id}</code> <span className="muted">{event.label}</span>
                </span>
              </Checkbox>
            ))}
          </div>
          <Text slot="description">
            The <code>webhook.*</code> events tell of the workspace’s other webhooks, never of this one; with boards chosen below, only of webhooks limited to some of those boards.
          </Text>
          <FieldError>{fieldErrors.events}</FieldError>
        </CheckboxGroup>
        {events.includes('ticket.updated') && (
          <CheckboxGroup name="fields" isInvalid={!!fieldErrors.fields} value={fields} onChange={setFields} className="field">
            <Label>Updates of these fields only</Label>
            <Text slot="description">For ticket.updated: only updates that change one of the chosen fields. None chosen: every update.</Text>
            <div className="checkbox-grid">
              {fieldChoices.map((field) => (
                <Checkbox key={field.id} value={field.id} className="checkbox">
                  <span className="checkbox-box" aria-hidden="true" />
                  <span>{field.name}</span>
                </Checkbox>
              ))}
            </div>
            <FieldError>{fieldErrors.fields}</FieldError>
          </CheckboxGroup>
        )}
        <CheckboxGroup name="boards" isInvalid={!!fieldErrors.boards} value={boardIds} onChange={setBoardIds} className="field">
          <Label>Boards</Label>
          <Text slot="description">Only tickets of the chosen boards. None chosen: every board.</Text>
          {boards.isPending && <p role="status">Loading boards…</p>}
          <ErrorAlert error={boards.error} prefix="The boards could not be loaded." />
          <div className="checkbox-grid">
            {(boards.data ?? []).map((board) => (
              <Checkbox key={board.id} value={board.id} className="checkbox">
                <span className="checkbox-box" aria-hidden="true" />
                <span>{board.name}</span>
              </Checkbox>
            ))}
          </div>
          <FieldError>{fieldErrors.boards}</FieldError>
        </CheckboxGroup>
        <TextField name="description" isInvalid={!!fieldErrors.description} defaultValue={subscription?.description} maxLength={500} className="field">
          <Label>Description (optional)</Label>
          <TextArea rows={2} />
          <FieldError>{fieldErrors.description}</FieldError>
        </TextField>
        <TextField name="maxInFlight" isInvalid={!!fieldErrors.maxInFlight} type="number" defaultValue={String(subscription?.maxInFlight ?? 10)} className="field">
          <Label>Attempts in flight at most</Label>
          <Input inputMode="numeric" min={1} max={limits?.maxInFlight} step={1} />
          <Text slot="description">
            How many deliveries your endpoint gets at once (default 10). More wait their turn, oldest first, without counting as failures. A 429
            or 503 answer lowers it for a while.
            {subscription && subscription.effectiveInFlight < subscription.maxInFlight ? ` Lowered to ${subscription.effectiveInFlight} now.` : ''}
          </Text>
          <FieldError>{fieldErrors.maxInFlight}</FieldError>
        </TextField>
        <TextField name="ratePerSecond" isInvalid={!!fieldErrors.ratePerSecond} type="number" defaultValue={subscription?.ratePerSecond?.toString() ?? ''} className="field">
          <Label>Deliveries per second at most (optional)</Label>
          <Input inputMode="decimal" min={limits?.minRatePerSecond} step="any" />
          <Text slot="description">
            Empty: no limit besides the one above.{limits ? ` At least ${limits.minRatePerSecond} (this service’s minimum).` : ''}
          </Text>
          <FieldError>{fieldErrors.ratePerSecond}</FieldError>
        </TextField>
        <TextField name="retrySchedule" isInvalid={!!fieldErrors.retrySchedule} defaultValue={retryDelaysText(subscription?.retrySchedule)} className="field">
          <Label>Retry delays in seconds (optional)</Label>
          <Input placeholder={limits ? limits.defaultRetryDelaysSeconds.join(', ') : ''} />
          <Text slot="description">
            The waits after each failed attempt, for example <code>60, 300</code> (three attempts); <code>none</code>: one attempt, no retry. Empty: the
            default seven attempts over about 35 hours.
            {limits ? ` At most ${limits.defaultRetryDelaysSeconds.length} delays, each at least ${limits.retryMinDelaySeconds} (this service’s minimum), adding up to at most ${limits.maxRetrySpanSeconds}.` : ''}
          </Text>
          <FieldError>{fieldErrors.retrySchedule}</FieldError>
        </TextField>
        <ChoiceSelect label="Payload" value={payload} onChange={(id) => setPayload(id as PayloadChoice)} choices={PAYLOAD_CHOICES} />
        <PayloadNote payload={payload} />
        <ErrorAlert
          error={error}
          fieldLabels={{ ...DESTINATION_LABELS, events: 'Events', fields: 'Updates of these fields only', boards: 'Boards', description: 'Description', maxInFlight: 'Attempts in flight at most', ratePerSecond: 'Deliveries per second at most', retrySchedule: 'Retry delays in seconds', payload: 'Payload' }}
        />
        <div className="dialog-actions">
          <Button className="button" onPress={close} isDisabled={pending}>
            Cancel
          </Button>
          <Button type="submit" className="button button-primary" isPending={pending}>
            {subscription ? 'Save' : 'Create webhook'}
          </Button>
        </div>
      </Form>
    </>
  );
}
