// A value shown once (an API key, a signing secret): read-only, selectable, with a copy button
// and a warning that it cannot be shown again; then the dialog's Done button that closes it.
import { useId, useState } from 'react';
import { Button } from 'react-aria-components';

export function SecretReveal({ label, value, warning, onDone }: { label: string; value: string; warning: React.ReactNode; onDone: () => void }) {
  const id = useId();
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
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
      </div>
      <div className="dialog-actions">
        <Button className="button button-primary" onPress={onDone}>
          Done
        </Button>
      </div>
    </>
  );
}
