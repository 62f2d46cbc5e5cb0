/**
 * Times as people read them on a card: relative to now ("just now", "5 min ago", "3 h ago",
 * "yesterday", "4 days ago"), then the date itself; the full time goes in a tooltip.
 */

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;

/** `at` relative to `now` (both milliseconds since the epoch). A time in the future (a clock ahead) reads "just now". */
export function relativeTime(at: number, now: number): string {
  const ago = now - at;
  if (ago < minute) return 'just now';
  if (ago < hour) return `${Math.floor(ago / minute)} min ago`;
  if (ago < day) return `${Math.floor(ago / hour)} h ago`;
  if (ago < 2 * day) return 'yesterday';
  if (ago < 7 * day) return `${Math.floor(ago / day)} days ago`;
  const sameYear = new Date(at).getFullYear() === new Date(now).getFullYear();
  return new Date(at).toLocaleDateString(undefined, sameYear ? { month: 'short', day: 'numeric' } : { dateStyle: 'medium' });
}

/** The full time, for the tooltip. */
export function fullTime(at: number): string {
  return new Date(at).toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'short' });
}

/** How long until `relativeTime(at, now)` may read differently: a minute while minutes count, else an hour. */
export function nextChangeIn(at: number, now: number): number {
  return now - at < hour ? minute : hour;
}
