import * as Y from 'yjs';
import { messageYjsSyncStep2, messageYjsUpdate } from 'y-protocols/sync';
import type { afterUnloadDocumentPayload, beforeSyncPayload, Extension } from '@hocuspocus/server';
import { parseDocName } from '../../shared/model/doc-layout.ts';
import type { AuthContext } from '../extensions/auth.ts';
import { ShapeRefused } from '../sync/shape-guard.ts';
import { extensionPriority } from '../sync/extension-priorities.ts';
import type { ClientOwners } from './client-owners.ts';

/** Close code of a refused update, as for a refused shape. */
const forbiddenCode = 4403;

/**
 * [WHO1] [WHO2] Records who writes the text of each document: before Hocuspocus applies a
 * writable connection's update to `<id>` (sync step 2 or update), every client id whose items
 * the update adds to the document is claimed for the connection's token (subject and name),
 * the first claim of an id winning. An update that adds items under a client id owned by
 * another subject is refused like a bad shape (4403, nothing applied, nothing logged): no
 * connection can write as someone else. Items the document has already (a relay of what the
 * server sent) are not claims. The claim is in the store before the update is applied, on
 * every instance alike.
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
    const author = { kind: 'person' as const, name: principal.name };
    const owners = cached
      ? new Map(added.map((client) => [client, principal.sub]))
      : await this.owners.claim(
          target.docId,
          added.map((client) => ({ client, subject: principal.sub, author })),
        );
    const foreign = added.find((client) => owners.get(client) !== principal.sub);
    if (foreign !== undefined) throw new ShapeRefused(forbiddenCode, `[WHO2] Client id ${foreign} writes for someone else.`);
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
