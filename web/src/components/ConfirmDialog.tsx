// A destructive action behind a confirmation: an alertdialog that traps focus, starts on
// Cancel, returns focus to its button when closed, and shows a failure inside itself.
import { useState } from 'react';
import { Button, Dialog, DialogTrigger, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { ErrorAlert } from './ErrorAlert.tsx';

interface Props {
  /** The button that opens the dialog. */
  label: string;
  /** Accessible name of that button when the visible label needs context (e.g. which key). */
  ariaLabel?: string;
  title: string;
  children: React.ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
  danger?: boolean;
}

export function ConfirmDialog({ label, ariaLabel, title, children, confirmLabel, onConfirm, danger = true }: Props) {
  const [error, setError] = useState<unknown>(null);
  const [pending, setPending] = useState(false);
  return (
    <DialogTrigger onOpenChange={() => setError(null)}>
      <Button className={danger ? 'button button-danger-outline' : 'button'} aria-label={ariaLabel}>
        {label}
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable={!pending}>
        <Modal className="modal">
          <Dialog role="alertdialog" className="dialog">
            {({ close }) => (
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
                        await onConfirm();
                        close();
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
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}
