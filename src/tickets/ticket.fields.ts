// The values of a ticket's board fields: one schema per field type (built once per load of the
// board), checked and applied to the ticket's current values, and the changes they make.
import { z } from 'zod';
import type { FieldError } from '../errors/errors.ts';
import type { BoardField } from '../generated/prisma/client.ts';
import type { FieldChange, JsonValue } from '../events/event.envelope.ts';
import type { BoardWithRules } from '../boards/board.repository.ts';
import { calendarDate, text } from '../validation/text.ts';
import { MAX_TEXT } from './ticket.inputs.ts';
import type { FieldValue } from './ticket.representation.ts';

// Board definitions are cached (boardService.rules), so a field's schema is built once per load
// of its board rather than on every request.
const valueSchemas = new WeakMap<BoardField, z.ZodType>();

function valueSchema(field: BoardField): z.ZodType {
  let schema = valueSchemas.get(field);
  if (!schema) valueSchemas.set(field, (schema = buildValueSchema(field)));
  return schema;
}

function buildValueSchema(field: BoardField): z.ZodType {
  const option = z.string().refine((v) => field.options.includes(v), `must be one of: ${field.options.join(', ')}`);
  switch (field.type) {
    case 'text':
      return text({ max: MAX_TEXT });
    case 'number':
      return z.number();
    case 'boolean':
      return z.boolean();
    case 'date':
      return calendarDate();
    case 'select':
      return option;
    case 'multiselect':
      return z.array(option).refine((v) => new Set(v).size === v.length, 'must not repeat an option');
  }
}

const sameJson = (a: JsonValue | undefined, b: JsonValue | undefined) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * Applies field entries to the current values (none for a new ticket): each fieldId must be a
 * field of the board, once; each value must fit the field's type; null clears a field, except a
 * required one. A new ticket must carry every required field.
 */
export function applyFields(
  board: BoardWithRules,
  entries: { fieldId: string; value?: unknown }[],
  current: FieldValue[],
  creating: boolean,
  errors: FieldError[],
): FieldValue[] {
  const values = new Map(current.map((f) => [f.fieldId, f.value]));
  const seen = new Set<string>();
  entries.forEach((entry, i) => {
    const field = board.fields.find((f) => f.id === entry.fieldId);
    if (!field) return errors.push({ path: `/fields/${i}/fieldId`, message: `is not a field of board ${board.id}` });
    if (seen.has(field.id)) return errors.push({ path: `/fields/${i}/fieldId`, message: 'appears more than once' });
    seen.add(field.id);
    if (entry.value === null || entry.value === undefined) {
      if (field.required) errors.push({ path: `/fields/${i}/value`, message: `${field.name} is required and cannot be empty` });
      values.delete(field.id);
      return;
    }
    const r = valueSchema(field).safeParse(entry.value);
    if (!r.success) {
      for (const issue of r.error.issues) {
        errors.push({ path: `/fields/${i}/value${issue.path.map((p) => `/${String(p)}`).join('')}`, message: `${field.name} (${field.type}): ${issue.message}` });
      }
      return;
    }
    values.set(field.id, r.data as JsonValue);
  });
  if (creating) {
    for (const field of board.fields) {
      if (field.required && !seen.has(field.id)) errors.push({ path: '/fields', message: `the required field ${field.name} (${field.id}) is missing` });
    }
  }
  // Stored in the board's field order, so the representation is stable.
  return board.fields.filter((f) => values.has(f.id)).map((f) => ({ fieldId: f.id, value: values.get(f.id)! }));
}

export function fieldChanges(before: FieldValue[], after: FieldValue[]): FieldChange[] {
  const old = new Map(before.map((f) => [f.fieldId, f.value]));
  const now = new Map(after.map((f) => [f.fieldId, f.value]));
  const changes: FieldChange[] = [];
  for (const id of new Set([...old.keys(), ...now.keys()])) {
    if (!sameJson(old.get(id), now.get(id))) changes.push({ field: `fields.${id}`, oldValue: old.get(id) ?? null, newValue: now.get(id) ?? null });
  }
  return changes;
}
