// The webhook form's retry schedule field: a person writes the delays as "60, 300" (or "none" for
// one attempt), the API takes `{delaysSeconds}`; the server checks the bounds (retry-schedule.ts).

interface ScheduleView {
  delaysSeconds: number[];
  maxAttempts: number;
  custom: boolean;
}

/** The field's text → the input member: null for the default (empty), 'invalid' when it is not a list of whole seconds. */
export function parseRetryDelays(text: string): { delaysSeconds: number[] } | null | 'invalid' {
  const t = text.trim();
  if (t === '') return null;
  if (/^none$/i.test(t)) return { delaysSeconds: [] };
  const parts = t.split(/\s*,\s*/);
  if (!parts.every((p) => /^\d{1,6}$/.test(p))) return 'invalid';
  return { delaysSeconds: parts.map(Number) };
}

/** What the field shows for a subscription: its own schedule, or empty for the default. */
export function retryDelaysText(s: ScheduleView | undefined): string {
  if (!s?.custom) return '';
  return s.delaysSeconds.length ? s.delaysSeconds.join(', ') : 'none';
}

const duration = (seconds: number) =>
  seconds % 3600 === 0 ? `${seconds / 3600} h` : seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;

/** The schedule in force, said for a person: "3 attempts: then after 1 min, 5 min". */
export function retryScheduleText(s: ScheduleView): string {
  const attempts = `${s.maxAttempts} attempt${s.maxAttempts === 1 ? '' : 's'}`;
  const label = s.custom ? attempts : `Default: ${attempts}`;
  return s.delaysSeconds.length ? `${label}, retried after ${s.delaysSeconds.map(duration).join(', ')}` : `${label}, no retry`;
}
