import * as Y from 'yjs';
import { messageYjsSyncStep2, messageYjsUpdate } from 'y-protocols/sync';
import type { afterUnloadDocumentPayload, beforeSyncPayload, Extension } from '@hocuspocus/server';
import { parseDocName } from '../../shared/model/doc-layout.ts';
import type { AuthContext } from '../extensions/auth.ts';
import { extensionPriority } from '../sync/extension-priorities.ts';
import type { ClientOwners } from './client-owners.ts';

/**
 * [WHO1] [WHO2] Records who writes the text of each document: before Hocuspocus applies a
 * writable connection's update to `<id>` (sync step 2 or update), every client id whose items
 * the update adds to the document is claimed for the connection's token (subject and name),
 * the first claim of an id winning and kept for good. Items under an id another subject owns
 * are applied and stay that owner's: peers relay each other's items (after an instance died,
 * a replica sends what only it still holds), and refusing them would lose edits. Items the
 * document has already are not claims. The claim is in the store before the update is
 * applied, on every instance alike.
 */
export class AuthorshipGuard implements Extension {
  extensionName = 'TandemAuthorshipGuard';
  priority = extensionPriority.authorshipGuard;

  constructor(private readonly owners: ClientOwners) {}

  async beforeSync({ type, payload, document, documentName, connection, context }: beforeSyncPayload<AuthContext>): Promise<void> {
    if ((type !== messageYjsSyncStep2 && type !== messageYjsUpdate) || connection.readOnly) return;
    const target = parseDocName(documentName);
    const principal = context?.principal;
    if (target?.part !== 'text' || !principal) return;
    const added = addedClients(payload, document);
    if (added.length === 0) return;
    // A keystroke of a client id already claimed costs no query (the usual case).
    const cached = added.every((client) => this.owners.known(target.docId, client) === principal.sub);
    if (cached) return;
    const author = { kind: 'person' as const, name: principal.name };
    await this.owners.claim(
      target.docId,
      added.map((client) => ({ client, subject: principal.sub, author })),
    );
  }

  async afterUnloadDocument({ documentName }: afterUnloadDocumentPayload): Promise<void> {
    const target = parseDocName(documentName);
    if (target?.part === 'text') this.owners.forget(target.docId);
  }
}

/** The client ids of which `update` holds items that `ydoc` has not got yet. */
export function addedClients(update: Uint8Array, ydoc: Y.Doc): number[] {
  const added: number[] = [];
  for (const [client, clock] of Y.parseUpdateMeta(update).to) {
    if (clock > Y.getState(ydoc.store, client)) added.push(client);
  }
  return added;
}
