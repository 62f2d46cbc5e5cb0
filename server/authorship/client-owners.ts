import type { AuthorshipBook, ClientClaim } from '../store/authorship-book.ts';
import { evictOldest } from '../evict-oldest.ts';

/**
 * The owners of the client ids of the text documents this process has seen written (WHO2),
 * in front of the store's book: a client id already known costs no query, a new one one
 * claim. Only an owner the store confirmed is kept, so another instance's earlier claim of
 * the same id always wins over this cache.
 */
export class ClientOwners {
  /** Client ids remembered per document; beyond this the oldest are asked of the store again. */
  static readonly perDoc = 10_000;
  private readonly byDoc = new Map<string, Map<number, string>>();

  constructor(private readonly book: AuthorshipBook) {}

  /** Claims `claims` for `docId` (the first claim of an id wins) and resolves the owner of each claimed id. */
  async claim(docId: string, claims: readonly ClientClaim[]): Promise<Map<number, string>> {
    let owners = this.byDoc.get(docId);
    if (!owners) this.byDoc.set(docId, (owners = new Map()));
    const answer = new Map<number, string>();
    const unknown: ClientClaim[] = [];
    for (const claim of claims) {
      const owner = owners.get(claim.client);
      if (owner === undefined) unknown.push(claim);
      else answer.set(claim.client, owner);
    }
    if (unknown.length > 0) {
      for (const [client, subject] of await this.book.claim(docId, unknown)) {
        owners.set(client, subject);
        answer.set(client, subject);
      }
      evictOldest(owners, ClientOwners.perDoc);
    }
    return answer;
  }

  /** The owner of `client` in `docId` as cached, without a query; undefined when not cached. */
  known(docId: string, client: number): string | undefined {
    return this.byDoc.get(docId)?.get(client);
  }

  /** Forgets what is cached of `docId` (its Y.Doc was unloaded). */
  forget(docId: string): void {
    this.byDoc.delete(docId);
  }
}
