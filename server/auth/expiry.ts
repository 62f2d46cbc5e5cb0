/**
 * Token lifetimes. `tandem token` without `--expires` makes a token good for 30 days: a link
 * that leaks stops working by itself, and a month spares people a new link every week. The
 * owner link of `npm start` is good for 7 days; every start prints a new one.
 * `--expires never` makes a token without `exp` (for long-running agents; revoke it to end it).
 */

export const defaultTokenSeconds = 30 * 24 * 3600;
export const ownerLinkSeconds = 7 * 24 * 3600;

const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 24 * 3600 };

/** Longest lifetime `--expires` accepts: ten years. */
const maxSeconds = 3650 * 24 * 3600;

/**
 * The seconds of a lifetime written `<count><unit>` (`90s`, `15m`, `12h`, `7d`), null for
 * `never`; throws a RangeError for anything else.
 */
export function parseLifetime(text: string): number | null {
  if (text === 'never') return null;
  const match = /^([1-9]\d{0,9})([smhd])$/.exec(text);
  const seconds = match ? Number(match[1]) * units[match[2]] : NaN;
  if (!(seconds <= maxSeconds)) {
    throw new RangeError(`--expires must be a count and a unit (s, m, h or d), e.g. 7d or 12h, or "never"; not "${text}"`);
  }
  return seconds;
}
