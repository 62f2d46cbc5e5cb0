import type * as Y from 'yjs';
import { agentSubject } from '../store/authorship-book.ts';
import type { StoredRun } from '../store/run-store.ts';
import type { ClientOwners } from './client-owners.ts';

/**
 * WHO3: fresh Yjs client ids for one batch of `run` on `ydoc`, one per instruction of the run,
 * each claimed in the store for the agent holding the run before anything is written, so that
 * the text the batch writes is never without its author. A fresh id per batch: two instances
 * applying batches of one document never write under one id (which would break its clocks).
 * Resolves the `writerFor` of the applier.
 */
export async function agentWriters(owners: ClientOwners, ydoc: Y.Doc, run: StoredRun): Promise<(instructionId: string) => number> {
  const instructionIds = [...new Set(run.items.map((item) => item.instructionId))];
  const taken = new Set(ydoc.store.clients.keys());
  const ids = new Map<string, number>();
  for (const instructionId of instructionIds) {
    let client: number;
    do client = freshClientId();
    while (taken.has(client));
    taken.add(client);
    ids.set(instructionId, client);
  }
  const name = run.claimedBy?.name ?? 'Agent';
  const subject = agentSubject(run.id);
  const claims = [...ids].map(([instructionId, client]) => ({ client, subject, author: { kind: 'agent' as const, name, runId: run.id, instructionId } }));
  const stored = await owners.claim(run.docId, claims);
  // A random 32-bit id someone claimed already (vanishingly rare): that instruction writes as the document's own id.
  return (instructionId) => {
    const client = ids.get(instructionId);
    return client !== undefined && stored.get(client) === subject ? client : ydoc.clientID;
  };
}

/** A client id as Yjs makes them (a random unsigned 32-bit integer). */
export function freshClientId(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0];
}
