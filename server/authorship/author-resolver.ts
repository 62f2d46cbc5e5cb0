import { unknownAuthor, type TextAuthor } from '../../shared/wire/authorship.ts';
import type { ClientAuthor } from '../store/authorship-book.ts';
import type { StoredRun } from '../store/run-store.ts';
import type { Store } from '../store/store.ts';

/** Who wrote the items of one Yjs client id of a document's text (WHO1, WHO4). */
export type AuthorOfClient = (client: number) => TextAuthor;

/**
 * The authors of `docId`'s client ids as they stand now: a person by name; an agent with the
 * model its run reported (MODEL8) and, once its instruction's change was accepted, the name
 * of the person who accepted it. An unclaimed id is `unknownAuthor`. One read of the book and
 * one of each run named; the answer does not follow later changes.
 */
export async function authorResolver(store: Store, docId: string): Promise<AuthorOfClient> {
  const stored = await store.authorship.authors(docId);
  const runIds = new Set([...stored.values()].flatMap(({ author }) => (author.kind === 'agent' ? [author.runId] : [])));
  const runs = new Map<string, StoredRun | null>();
  await Promise.all([...runIds].map(async (runId) => runs.set(runId, await store.runs.getRun(runId))));
  const authors = new Map<number, TextAuthor>();
  for (const [client, { author }] of stored) authors.set(client, textAuthor(author, runs));
  return (client) => authors.get(client) ?? unknownAuthor;
}

/** `authorOfClient` for one id, for a caller that needs a single answer (a compare of versions). */
export async function authorOfClient(store: Store, docId: string, client: number): Promise<TextAuthor> {
  return (await authorResolver(store, docId))(client);
}

function textAuthor(author: ClientAuthor, runs: ReadonlyMap<string, StoredRun | null>): TextAuthor {
  if (author.kind === 'person') return { kind: 'person', name: author.name };
  const run = runs.get(author.runId) ?? null;
  const item = run?.items.find((each) => each.instructionId === author.instructionId);
  const model = run?.activity?.model ?? undefined;
  const acceptedBy = item?.decision === 'accepted' ? run?.decidedBy?.name : undefined;
  return {
    kind: 'agent',
    name: author.name,
    runId: author.runId,
    instructionId: author.instructionId,
    ...(model ? { model } : {}),
    ...(acceptedBy ? { acceptedBy } : {}),
  };
}
