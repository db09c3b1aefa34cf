// An action behind a confirmation: an alertdialog that traps focus, starts on Cancel, returns
// focus to its button when closed, and shows a failure inside itself. With `result`, a success
// shows what the action returned (e.g. a secret shown once) in the same dialog instead of closing.
import { useState } from 'react';
import { Button, Dialog, DialogTrigger, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { ErrorAlert } from './ErrorAlert.tsx';

interface Props<T> {
  /** The button that opens the dialog. */
  label: string;
  /** Accessible name of that button when the visible label needs context (e.g. which key). */
  ariaLabel?: string;
  title: string;
  children: React.ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<T>;
  danger?: boolean;
  /** What the dialog shows after a success, in place of closing. */
  result?: (value: T, close: () => void) => React.ReactNode;
}

export function ConfirmDialog<T = unknown>({ label, ariaLabel, title, children, confirmLabel, onConfirm, danger = true, result }: Props<T>) {
  const [error, setError] = useState<unknown>(null);
  const [pending, setPending] = useState(false);
  const [done, setDone] = useState<{ value: T } | null>(null);
  return (
    <DialogTrigger
      onOpenChange={() => {
        setError(null);
        setDone(null);
      }}
    >
      <Button className={danger ? 'button button-danger-outline' : 'button'} aria-label={ariaLabel}>
        {label}
      </Button>
      {/* A result (a secret shown once) closes only by its own button, never by Escape or a click outside. */}
      <ModalOverlay className="modal-overlay" isDismissable={!pending && !done} isKeyboardDismissDisabled={!!done && !!result}>
        <Modal className="modal">
          <Dialog role="alertdialog" className="dialog">
            {({ close }) =>
              done && result ? (
                result(done.value, close)
              ) : (
                <>
                  <Heading slot="title">{title}</Heading>
                  <div className="dialog-body">{children}</div>
                  <ErrorAlert error={error} />
                  <div className="dialog-actions">
                    <Button className="button" autoFocus onPress={close} isDisabled={pending}>
                      Cancel
                    </Button>
                    <Button
                      className={danger ? 'button button-danger' : 'button button-primary'}
                      isPending={pending}
                      onPress={async () => {
                        setPending(true);
                        setError(null);
                        try {
                          const value = await onConfirm();
                          if (result) setDone({ value });
                          else close();
                        } catch (err) {
                          setError(err);
                        } finally {
                          setPending(false);
                        }
                      }}
                    >
                      {confirmLabel}
                    </Button>
                  </div>
                </>
              )
            }
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}
