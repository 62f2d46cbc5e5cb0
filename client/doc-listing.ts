import { ApiError, listDocs, type DocSummary } from './api.ts';
import { readRecentDocs, type RecentDoc } from './recent-docs.ts';

/** Fired (bubbling) by the trash when a document came back from it, so that the list reads itself again. */
export const docRestoredEvent = 'doc-restored';

export interface ListedDoc {
  id: string;
  title: string;
  when?: number;
}

/** What the document list shows: the server's documents, or this device's when it cannot list them. */
export interface DocListing {
  docs: ListedDoc[];
  /** The server could not be reached: `docs` are the ones opened on this device. */
  offline: boolean;
  /** Why the server refused the list, in words for people; empty when it did not. */
  error: string;
}

/**
 * The documents of this server, newest first (or those matching `query`, best first); when the server cannot be reached or refuses,
 * the documents opened on this device (none when the server does not accept the token). Never
 * rejects.
 */
export async function loadDocListing(token: string, query = ''): Promise<DocListing> {
  try {
    const docs = (await listDocs(token, query)).map(fromServer);
    // A search answers best match first; the plain list newest first.
    return { docs: query.trim() ? docs : docs.sort((a, b) => (b.when ?? 0) - (a.when ?? 0)), offline: false, error: '' };
  } catch (error) {
    const recent = await readRecentDocs();
    const offline = error instanceof ApiError && error.code === 'OFFLINE';
    const refused = error instanceof ApiError && error.status === 401;
    return { docs: refused ? [] : recent.map(fromRecent), offline, error: offline ? '' : describeListError(error) };
  }
}

function fromServer(doc: DocSummary): ListedDoc {
  const when = typeof doc.updatedAt === 'number' ? doc.updatedAt : Date.parse(doc.updatedAt ?? '');
  return { id: doc.id, title: doc.title, when: Number.isFinite(when) ? when : undefined };
}

function fromRecent(doc: RecentDoc): ListedDoc {
  return { id: doc.id, title: doc.title, when: doc.openedAt };
}

export function describeListError(error: unknown): string {
  if (error instanceof ApiError && error.status === 401) {
    return 'The server does not accept the sign-in of this browser. Open the link printed by npm start again.';
  }
  return error instanceof Error ? error.message : 'Something went wrong.';
}
