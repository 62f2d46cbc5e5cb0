import diff from 'fast-diff';
import type { AuthorshipAnswer, TextAuthor } from '../../shared/wire/authorship.ts';
import type { VersionChange } from '../../shared/wire/versions.ts';

type AuthoredBlocks = AuthoredBlock[];
type AuthoredBlock = AuthorshipAnswer['blocks'][number];

/**
 * HIST5: what changed from the text `from` to the text `to`, both as their writers' spans
 * (server/authorship/author-resolver.ts): block by block in `to`'s order, a removed block where
 * it stood, each insertion by who wrote the inserted text and each deletion by who wrote the
 * deleted text, a change cut where its writers change. Blocks are matched by id; a block's
 * text is compared character by character.
 */
export function compareTexts(from: AuthoredBlocks, to: AuthoredBlocks): VersionChange[] {
  const before = byId(from);
  const after = byId(to);
  const changes: VersionChange[] = [];
  const beforeOrder = [...before.keys()];
  let next = 0;
  const removedUpTo = (stop: number) => {
    for (; next < stop; next++) {
      const blockId = beforeOrder[next];
      const removed = before.get(blockId);
      if (removed && !after.has(blockId)) push(changes, 'delete', blockId, removed);
    }
  };
  for (const [blockId, spans] of after) {
    const old = before.get(blockId);
    if (!old) {
      push(changes, 'insert', blockId, spans);
      continue;
    }
    // A block moved up stands where it is now; the blocks before its old place are passed later.
    const index = beforeOrder.indexOf(blockId, next);
    if (index >= 0) {
      removedUpTo(index);
      next = index + 1;
    }
    compareBlock(changes, blockId, old, spans);
  }
  removedUpTo(beforeOrder.length);
  return changes;
}

type Spans = AuthoredBlock['spans'];

/** A document's blocks by id, in order; the spans of blocks sharing an id (nested ones) joined. */
function byId(blocks: AuthoredBlocks): Map<string, Spans> {
  const map = new Map<string, Spans>();
  for (const { blockId, spans } of blocks) {
    const known = map.get(blockId);
    if (known) known.push({ text: '\n', by: spans[0]?.by ?? known[0]?.by ?? { kind: 'person', name: 'Unknown' } }, ...spans);
    else map.set(blockId, [...spans]);
  }
  return map;
}

function compareBlock(changes: VersionChange[], blockId: string, from: Spans, to: Spans): void {
  const oldText = textOf(from);
  const newText = textOf(to);
  if (oldText === newText) return;
  let oldAt = 0;
  let newAt = 0;
  for (const [op, text] of onWordBoundaries(diff(oldText, newText, undefined, true))) {
    if (op === diff.EQUAL) {
      oldAt += text.length;
      newAt += text.length;
    } else if (op === diff.DELETE) {
      push(changes, 'delete', blockId, slice(from, oldAt, oldAt + text.length));
      oldAt += text.length;
    } else {
      push(changes, 'insert', blockId, slice(to, newAt, newAt + text.length));
      newAt += text.length;
    }
  }
}

/**
 * Each edit between two equal runs slid, as far as the text allows, to where it begins at a
 * word: "one [two ]three" rather than "one t[wo t]hree", the same change.
 */
function onWordBoundaries(ops: diff.Diff[]): diff.Diff[] {
  const out = ops.map(([op, text]) => [op, text] as diff.Diff);
  for (let i = 1; i < out.length - 1; i++) {
    const [before, edit, after] = [out[i - 1], out[i], out[i + 1]];
    if (before[0] !== diff.EQUAL || edit[0] === diff.EQUAL || after[0] !== diff.EQUAL) continue;
    let [left, middle, right] = [before[1], edit[1], after[1]];
    // Slide left as far as possible, then right one character at a time to the best place.
    while (left.length > 0 && left.at(-1) === middle.at(-1)) [left, middle, right] = [left.slice(0, -1), left.slice(-1) + middle.slice(0, -1), middle.slice(-1) + right];
    let best = [left, middle, right];
    let bestScore = boundaryScore(left, middle);
    while (right.length > 0 && right[0] === middle[0]) {
      [left, middle, right] = [left + middle[0], middle.slice(1) + right[0], right.slice(1)];
      const score = boundaryScore(left, middle);
      if (score > bestScore) [best, bestScore] = [[left, middle, right], score];
    }
    [before[1], edit[1], after[1]] = best;
  }
  return out.filter(([, text]) => text !== '');
}

/** How well an edit of `middle` after `left` sits on words: it begins a word (2), and ends after a space (1). */
function boundaryScore(left: string, middle: string): number {
  const startsWord = left === '' || /\s$/.test(left);
  const endsAtSpace = /\s$/.test(middle);
  return (startsWord ? 2 : 0) + (endsAtSpace ? 1 : 0);
}

function textOf(spans: Spans): string {
  return spans.map((span) => span.text).join('');
}

/** The spans covering characters `start`…`end - 1`, cut to them. */
function slice(spans: Spans, start: number, end: number): Spans {
  const cut: Spans = [];
  let at = 0;
  for (const span of spans) {
    const spanEnd = at + span.text.length;
    if (spanEnd > start && at < end) cut.push({ text: span.text.slice(Math.max(0, start - at), Math.min(span.text.length, end - at)), by: span.by });
    at = spanEnd;
  }
  return cut;
}

/** One change per writer: consecutive spans of the same writer make one. */
function push(changes: VersionChange[], kind: VersionChange['kind'], blockId: string, spans: Spans): void {
  let last: VersionChange | null = null;
  for (const { text, by } of spans) {
    if (text === '') continue;
    if (last && sameAuthor(last.by, by)) last.text += text;
    else changes.push((last = { kind, blockId, text, by }));
  }
}

function sameAuthor(a: TextAuthor, b: TextAuthor): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
