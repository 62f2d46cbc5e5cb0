import { describe, expect, it } from 'vitest';
import { docName, notesParts } from '../../shared/model/doc-layout.ts';
import { SafeUnloadHocuspocus } from '../../server/sync/hocuspocus-internals.ts';
import { waitFor } from '../helpers/peer.ts';
import { createDoc, instruct } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * A document unloaded and loaded again under the same name: an unload still due for the old copy
 * (Hocuspocus schedules one after every store) must leave the new copy, and the peers on it, alone.
 */

const server = useTestServer();

describe('a document loaded again while an unload of its old copy is due', () => {
  it('stays the one Hocuspocus holds when the old copy is unloaded again', async () => {
    const hocuspocus = new SafeUnloadHocuspocus({ quiet: true });
    const old = await hocuspocus.openDirectConnection('doc');
    const oldDocument = old.document!;
    await old.disconnect();
    expect(hocuspocus.documents.has('doc')).toBe(false);

    const current = await hocuspocus.openDirectConnection('doc');
    const currentDocument = current.document!;
    await hocuspocus.unloadDocument(oldDocument);
    expect(hocuspocus.documents.get('doc')).toBe(currentDocument);
    await current.disconnect();
    expect(hocuspocus.documents.has('doc')).toBe(false);
  });

  it('a peer that joins as a server-side write unloads the document hears every later write', async () => {
    const doc = await createDoc(server, 'alpha\n\nbeta');
    const missed: number[] = [];
    for (let round = 0; round < 60; round++) {
      // The API writes through a direct connection, which unloads the document as it closes;
      // the peer joins a few milliseconds later, in the window where the old copy's unload is due.
      const first = instruct(server, doc.id, doc.blocks[0].id, `first ${round}`);
      await new Promise((resolve) => setTimeout(resolve, round % 5));
      const peer = server.connect(docName(doc.id, 'notes'));
      await first;
      await peer.synced;
      const second = await instruct(server, doc.id, doc.blocks[1].id, `second ${round}`);
      try {
        await waitFor(() => notesParts(peer.ydoc).annotations.has(second), 2000);
      } catch {
        missed.push(round);
      }
      peer.destroy();
    }
    expect(missed).toEqual([]);
  }, 60_000);
});
