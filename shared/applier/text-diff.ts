import diff from 'fast-diff';

/** One piece of a text diff: kept, removed from the old text, or added in the new one. */
export type TextDiffPart = { kind: 'same' | 'removed' | 'added'; text: string };

const kinds = { [diff.EQUAL]: 'same', [diff.DELETE]: 'removed', [diff.INSERT]: 'added' } as const;

/**
 * The difference between two texts, in reading order, cut to human-sized pieces (a character
 * diff with fast-diff's semantic cleanup: "quick" → "slow" is one replacement, not a few shared
 * letters). Deterministic, and never splits a surrogate pair. The applier writes and marks by
 * it, and the review shows it, so both agree on what a run changed.
 */
export function textDiff(before: string, after: string): TextDiffPart[] {
  return diff(before, after, undefined, true).map(([kind, text]) => ({ kind: kinds[kind], text }));
}
