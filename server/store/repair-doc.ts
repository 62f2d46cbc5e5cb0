import * as Y from 'yjs';
import { docName, type DocPart } from '../../shared/model/doc-layout.ts';
import type { Store } from './store.ts';
import { applyStored, type LeftOut } from './update-log.ts';

const parts: DocPart[] = ['text', 'notes', 'runs'];

/**
 * [SHAPE6] Rebuilds each part of the document `docId` from what of its stored state and log can
 * be read (applyStored, SHAPE5) and, where a part lost something, writes the rebuilt state back
 * as its compacted state, covering the log read: the part then loads as it is, with nothing left
 * out. Returns what each repaired part left out; nothing for a document that needed none.
 *
 * A server holding the document meanwhile keeps its own copy, which it loaded without the same
 * parts; an update it logs after the read stays in the log.
 */
export async function repairDoc(store: Store, docId: string): Promise<LeftOut[]> {
  const repaired: LeftOut[] = [];
  for (const part of parts) {
    const name = docName(docId, part);
    const stored = await store.updates.read(name);
    const found: LeftOut[] = [];
    // No garbage collection: the state keeps every deleted item the live document keeps (RunGc).
    const ydoc = new Y.Doc({ gc: false });
    try {
      applyStored(ydoc, stored, { name, onLeftOut: (leftOut) => found.push(leftOut) });
      if (found.length === 0) continue;
      await store.updates.compact(name, Y.encodeStateAsUpdate(ydoc), stored.lastSeq);
      repaired.push(...found);
    } finally {
      ydoc.destroy();
    }
  }
  return repaired;
}
