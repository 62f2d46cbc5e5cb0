import type * as Y from 'yjs';
import { quoteOf, resolveAnchors, type Anchor, type ProsemirrorMapping, type ResolvedAnchor } from '../model/anchors.ts';

/**
 * Drift (PROTOCOL.md RUN5): the text an annotation is pinned to changed after it was pinned.
 * Its `quote` is the text its anchors covered when it was made; when they now cover other
 * text, or none (the text was deleted), the annotation has drifted, and Send tells both the
 * person and the agent what it was and what it is now.
 */

export interface Drift {
  /** The quote: the text as it was when the annotation was pinned. */
  was: string;
  /** The text the anchors cover now (as a quote), or null when it was deleted. */
  now: string | null;
}

/** What the anchors of a pinned text cover now, as the quote would read it; null when deleted or not here yet. */
export function currentQuote(resolved: ResolvedAnchor): string | null {
  return resolved.status === 'attached' ? quoteOf(resolved.text) : null;
}

/**
 * The drift of text pinned with `quote` whose anchors resolve to `resolved`, or null when it
 * still reads the same. Text this replica has not received yet (`not-synced`) is not drift.
 */
export function driftOf(quote: string, resolved: ResolvedAnchor): Drift | null {
  if (resolved.status === 'orphaned') return resolved.reason === 'deleted' ? { was: quote, now: null } : null;
  const now = quoteOf(resolved.text);
  return now === quote ? null : { was: quote, now };
}

/** `driftOf` for each pinned text, over one projection of `textYdoc` (see anchors.ts for `mapping`). */
export function detectDrift(
  textYdoc: Y.Doc,
  pinned: readonly { anchor: Anchor; quote: string }[],
  mapping?: ProsemirrorMapping,
): (Drift | null)[] {
  if (pinned.length === 0) return [];
  const resolved = resolveAnchors(
    textYdoc,
    pinned.map((each) => each.anchor),
    mapping,
  );
  return pinned.map((each, index) => driftOf(each.quote, resolved[index]));
}
