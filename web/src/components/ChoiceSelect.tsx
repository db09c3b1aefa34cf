// A labelled drop-down of fixed choices (react-aria's Select): the delivery filters, the
// recovery's period.
import { Button, Label, ListBox, ListBoxItem, Popover, Select, SelectValue } from 'react-aria-components';

export interface Choice {
  id: string;
  name: string;
}

export function ChoiceSelect({ label, value, onChange, choices, className = 'field', name }: {
  label: string;
  /** Submitted with the form under this name. */
  name?: string;
  value: string;
  onChange: (id: string) => void;
  choices: Choice[];
  className?: string;
}) {
  return (
    <Select className={className} name={name} value={value} onChange={(key) => key != null && onChange(String(key))}>
      <Label>{label}</Label>
      <Button className="select-button">
        <SelectValue />
        <span aria-hidden="true">▾</span>
      </Button>
      <Popover className="popover">
        <ListBox items={choices} className="listbox">
          {(c) => (
            <ListBoxItem id={c.id} className="listbox-item">
              {c.name}
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </Select>
  );
}
