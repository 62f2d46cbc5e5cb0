import * as Y from 'yjs';
import type { Extension, onChangePayload } from '@hocuspocus/server';
import { parseDocName } from '../../shared/model/doc-layout.ts';
import type { AuthContext } from './auth.ts';
import { evictOldest } from '../evict-oldest.ts';
import { extensionPriority } from '../sync/extension-priorities.ts';

/**
 * Who writes the text of each document, by Yjs client id: every update a connection sends to
 * `<id>` is noted under the connection's name, so that Accept can say who changed a block the
 * run deleted meanwhile (REV6). Held in memory for as long as the process runs: after a restart,
 * writers not heard from since are unknown (`names` leaves them out).
 */
export class TextWriters implements Extension {
  extensionName = 'TandemTextWriters';
  priority = extensionPriority.textWriters;
  /** Client ids remembered per document; the oldest are forgotten beyond this (a new tab is a new id). */
  static readonly perDoc = 10_000;
  private readonly byDoc = new Map<string, Map<number, string>>();

  async onChange({ documentName, update, context }: onChangePayload): Promise<void> {
    const name = (context as Partial<AuthContext> | undefined)?.principal?.name;
    const target = parseDocName(documentName);
    if (!name || target?.part !== 'text') return;
    let writers = this.byDoc.get(target.docId);
    if (!writers) this.byDoc.set(target.docId, (writers = new Map()));
    // The first name heard for a client id is its writer (a client sends only its own new items).
    for (const client of Y.parseUpdateMeta(update).to.keys()) {
      if (writers.has(client)) continue;
      writers.set(client, name);
      evictOldest(writers, TextWriters.perDoc);
    }
  }

  /** The names of the known writers among `clients`, each once, in order. */
  names(docId: string, clients: readonly number[]): string[] {
    const writers = this.byDoc.get(docId);
    const names = clients.flatMap((client) => writers?.get(client) ?? []);
    return [...new Set(names)];
  }
}
