// A receiver's Retry-After (RFC 9110, section 10.2.3): delay-seconds or an HTTP-date (the IMF
// fixdate form, which RFC 9110 says senders must use). Parsed strictly: anything else is ignored,
// as if there were no header.

/** A Retry-After is honoured up to a week; the schedule then caps it at its remaining span. */
export const MAX_RETRY_AFTER_MS = 7 * 24 * 3_600_000;

const DELAY_SECONDS = /^\d{1,10}$/;
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The wait asked for, in ms from `now` (0 for a date in the past, at most MAX_RETRY_AFTER_MS); null when absent or malformed. */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (value === undefined) return null;
  const v = value.trim();
  if (DELAY_SECONDS.test(v)) return Math.min(Number(v) * 1000, MAX_RETRY_AFTER_MS);
  const m = IMF_FIXDATE.exec(v);
  if (!m) return null;
  const [, , day, month, year, hh, mm, ss] = m;
  const at = Date.UTC(Number(year), MONTHS.indexOf(month), Number(day), Number(hh), Number(mm), Number(ss));
  const date = new Date(at);
  // Date.UTC rolls 31 Feb over into March: such a date is not a date.
  if (date.getUTCDate() !== Number(day) || Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 60) return null;
  return Math.min(Math.max(0, at - now.getTime()), MAX_RETRY_AFTER_MS);
}
