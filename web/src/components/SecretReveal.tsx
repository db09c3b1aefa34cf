// A value shown once (an API key, a signing secret): read-only, selectable, with a copy button
// and a warning that it cannot be shown again; then the dialog's Done button that closes it.
// Done is enabled once the value was copied or the person confirms they kept it some other way;
// the dialogs showing it are neither dismissed by Escape nor by a click outside (issue 34, item 4).
import { useId, useState } from 'react';
import { Button, Checkbox } from 'react-aria-components';

export function SecretReveal({ label, value, warning, onDone }: { label: string; value: string; warning: React.ReactNode; onDone: () => void }) {
  const id = useId();
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const [kept, setKept] = useState(false);
  const canClose = copied === 'yes' || kept;
  return (
    <>
      <div className="secret">
        <p className="alert alert-warning" id={`${id}-warning`}>
          {warning}
        </p>
        <label htmlFor={id}>{label}</label>
        <div className="secret-row">
          <input
            id={id}
            className="secret-value"
            readOnly
            value={value}
            aria-describedby={`${id}-warning`}
            onFocus={(e) => e.currentTarget.select()}
            spellCheck={false}
          />
          <Button
            className="button"
            onPress={async () => {
              try {
                await navigator.clipboard.writeText(value);
                setCopied('yes');
              } catch {
                setCopied('failed');
              }
            }}
          >
            Copy
          </Button>
        </div>
        <p role="status" className="hint">
          {copied === 'yes' && 'Copied to the clipboard.'}
          {copied === 'failed' && 'The browser did not allow copying: select the value and copy it yourself.'}
        </p>
        {copied !== 'yes' && (
          <Checkbox className="checkbox" isSelected={kept} onChange={setKept}>
            <span className="checkbox-box" aria-hidden="true" />
            <span>I have kept the value somewhere safe</span>
          </Checkbox>
        )}
      </div>
      <div className="dialog-actions">
        {!canClose && (
          <p className="hint" id={`${id}-done-hint`}>
            Copy the value or confirm you kept it to close.
          </p>
        )}
        <Button className="button button-primary" onPress={onDone} isDisabled={!canClose} aria-describedby={canClose ? undefined : `${id}-done-hint`}>
          Done
        </Button>
      </div>
    </>
  );
}
