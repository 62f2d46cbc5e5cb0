import { unknownAuthor, type AuthorshipAnswer, type TextAuthor } from '../../shared/wire/authorship.ts';
import type { ClientAuthor, RestoredRange } from '../store/authorship-book.ts';
import type { StoredRun } from '../store/run-store.ts';
import type { Store } from '../store/store.ts';
import { groupSpans, type BlockPieces, type TextPiece } from './text-spans.ts';

/** How many copies of copies a restored item is followed back through (each undo of an undo is one). */
const maxCopies = 32;

/** Who wrote the Yjs items of one document's text (WHO1, WHO3, WHO4). */
export interface TextAuthors {
  /** Who wrote the item of `client` at `clock`, a copy (restored text) followed back to its original. */
  authorOfItem(client: number, clock: number): TextAuthor;
  /** `blocks` as spans of their writers (the route's answer). */
  spans(blocks: readonly BlockPieces[]): AuthorshipAnswer['blocks'];
}

/**
 * The authors of `docId`'s text as they stand now: a person by name; an agent with the model
 * its run reported (MODEL8) and, once its instruction's change was accepted, the name of the
 * person who accepted it; restored text by the writer of what it copies. An unclaimed id is
 * `unknownAuthor`. One read of the book and one of each run named; the answer does not follow
 * later changes.
 */
export async function authorResolver(store: Store, docId: string): Promise<TextAuthors> {
  const stored = new Map([...(await store.authorship.authors(docId))].map(([client, { author }]) => [client, author]));
  const runIds = new Set([...stored.values()].flatMap((author) => (author.kind === 'agent' ? [author.runId] : [])));
  const runs = new Map<string, StoredRun | null>();
  await Promise.all([...runIds].map(async (runId) => runs.set(runId, await store.runs.getRun(runId))));
  const authors = new Map<number, TextAuthor>();
  for (const [client, author] of stored) if (author.kind !== 'restored') authors.set(client, textAuthor(author, runs));
  const authorOf = (client: number) => authors.get(client) ?? unknownAuthor;
  const rangesOf = (client: number): readonly RestoredRange[] | null => {
    const author = stored.get(client);
    return author?.kind === 'restored' ? author.ranges : null;
  };
  return {
    authorOfItem(client, clock) {
      for (let depth = 0; depth < maxCopies; depth++) {
        const range = rangesOf(client)?.find((each) => clock >= each.clock && clock < each.clock + each.length);
        if (!range) break;
        [client, clock] = [range.fromClient, range.fromClock + (clock - range.clock)];
      }
      return authorOf(client);
    },
    spans(blocks) {
      return groupSpans(
        blocks.map(({ blockId, pieces }) => ({ blockId, pieces: pieces.flatMap((piece) => originals(piece, rangesOf, 0)) })),
        authorOf,
      );
    },
  };
}

/** `authorOfItem` for one item, for a caller that needs a single answer (a compare of versions). */
export async function authorOfClient(store: Store, docId: string, client: number, clock = 0): Promise<TextAuthor> {
  return (await authorResolver(store, docId)).authorOfItem(client, clock);
}

/** `piece` cut where its characters copy different originals, each part named by its original's id; parts that copy nothing stay. */
function originals(piece: TextPiece, rangesOf: (client: number) => readonly RestoredRange[] | null, depth: number): TextPiece[] {
  const ranges = rangesOf(piece.client);
  if (!ranges || depth >= maxCopies) return [piece];
  const parts: TextPiece[] = [];
  const end = piece.clock + piece.text.length;
  let at = piece.clock;
  while (at < end) {
    const range = ranges.find((each) => at >= each.clock && at < each.clock + each.length);
    const next = range ? Math.min(end, range.clock + range.length) : Math.min(end, ...ranges.filter((each) => each.clock > at).map((each) => each.clock));
    const text = piece.text.slice(at - piece.clock, next - piece.clock);
    if (range) parts.push(...originals({ client: range.fromClient, clock: range.fromClock + (at - range.clock), text }, rangesOf, depth + 1));
    else parts.push({ client: piece.client, clock: at, text });
    at = next;
  }
  return parts;
}

function textAuthor(author: Exclude<ClientAuthor, { kind: 'restored' }>, runs: ReadonlyMap<string, StoredRun | null>): TextAuthor {
  if (author.kind === 'person') return { kind: 'person', name: author.name };
  const run = runs.get(author.runId) ?? null;
  const item = run?.items.find((each) => each.instructionId === author.instructionId);
  const model = run?.activity?.model ?? undefined;
  // Who accepted the item (kept at its decision), else who decided the run (a run decided before that was kept).
  const acceptedBy = item?.decision === 'accepted' ? (author.acceptedBy ?? run?.decidedBy?.name) : undefined;
  return {
    kind: 'agent',
    name: author.name,
    runId: author.runId,
    instructionId: author.instructionId,
    ...(model ? { model } : {}),
    ...(acceptedBy ? { acceptedBy } : {}),
  };
}
