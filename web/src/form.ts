/** A text field's value from a submitted form: '' when the form has no such field (never the string "null"). */
export function formText(data: FormData, name: string): string {
  const value = data.get(name);
  return typeof value === 'string' ? value : '';
}
