import type { StoredVersion } from '../store/version-book.ts';

const hour = 60 * 60 * 1000;
const day = 24 * hour;

/**
 * HIST3: the versions thinned away as `versions` (one document's) age at `now`. Named versions,
 * run decisions and restores are kept for good; automatic ones are all kept for a day, then the
 * newest of each hour for a week, then the newest of each day. A document written every day
 * keeps at most about 24 × 12 + 7 × 24 automatic versions of the last week, and one a day before.
 */
export function thinnedAway(versions: readonly StoredVersion[], now: number): string[] {
  const kept = new Set<string>();
  const away: string[] = [];
  const newestFirst = [...versions].sort((a, b) => b.createdAt - a.createdAt);
  for (const version of newestFirst) {
    if (version.reason !== 'auto') continue;
    const age = now - version.createdAt;
    if (age < day) continue;
    const bucket = age < 7 * day ? `h${Math.floor(version.createdAt / hour)}` : `d${Math.floor(version.createdAt / day)}`;
    if (kept.has(bucket)) away.push(version.id);
    else kept.add(bucket);
  }
  return away;
}
