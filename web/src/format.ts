const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export const formatDateTime = (iso: string | null | undefined, empty = '—') => (iso ? dateTime.format(new Date(iso)) : empty);
export const formatDate = (iso: string | null | undefined, empty = '—') => (iso ? dateOnly.format(new Date(iso)) : empty);
