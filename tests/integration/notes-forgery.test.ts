import * as Y from 'yjs';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { readAnnotation } from '../../shared/notes/annotations.ts';
import { addTurn } from '../../shared/notes/annotations-writers.ts';
import { maxNotesUpdateBytes } from '../../shared/notes/notes-rules.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import { waitFor } from '../helpers/peer.ts';
import { addAnnotation } from '../helpers/notes.ts';
import { notesPeer, notesSummary, serverNotes, type Principal } from '../helpers/notes-peers.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

const server = useTestServer();

const ed: Principal = { sub: 'ed', name: 'Ed', role: 'editor' };
const cora: Principal = { sub: 'cora', name: 'Cora', role: 'commenter' };
const author = (who: Principal) => ({ id: who.sub, name: who.name });
const hour = 3600_000;

/** A document with one comment by Ed, Ed's peer watching its notes, and what the server holds. */
async function watchedDoc() {
  const id = await server.createDoc('Guarded notes', 'some text');
  const watcher = notesPeer(server, id, ed);
  await watcher.synced;
  const comment = addAnnotation(watcher.ydoc, author(ed), { text: 'first' });
  await waitFor(async () => (await serverNotes(server, id)) === notesSummary(watcher.ydoc));
  return { id, watcher, comment, stored: notesSummary(watcher.ydoc) };
}

/**
 * Sends `forge`'s change from a peer of `who` and waits for the server to refuse it with `rule`;
 * then checks that the watcher never got it and that the stored notes, after a restart, are
 * exactly what they were.
 */
async function expectRefused(doc: Awaited<ReturnType<typeof watchedDoc>>, who: Principal, rule: string, forge: (ydoc: Y.Doc) => void) {
  const forger = notesPeer(server, doc.id, who);
  await forger.synced;
  forge(forger.ydoc);
  await waitFor(() => forger.closed.length > 0);
  expect(forger.closed[0]).toMatch(new RegExp(`^\\[${rule}\\] `));
  forger.destroy();
  const honest = addAnnotation(doc.watcher.ydoc, author(ed), { text: 'a positive control' });
  await waitFor(async () => (await serverNotes(server, doc.id)) === notesSummary(doc.watcher.ydoc));
  expect(readAnnotation(doc.watcher.ydoc, honest).ok).toBe(true);
  const withControl = notesSummary(doc.watcher.ydoc);
  await server.restart();
  expect(await serverNotes(server, doc.id)).toBe(withControl);
  return withControl;
}

describe('forged notes over Yjs', () => {
  it('[NOTES9] refuses a comment or a reply under a name the token does not give', async () => {
    const doc = await watchedDoc();
    await expectRefused(doc, cora, 'NOTES9', (ydoc) => addAnnotation(ydoc, { id: 'cora', name: 'Ed' }, { text: 'Approved.' }));
    expect(JSON.stringify(doc.watcher.ydoc.toJSON())).not.toContain('Approved.');
    await expectRefused(doc, cora, 'NOTES9', (ydoc) => addTurn(ydoc, doc.comment, { author: { id: 'cora', name: 'Owner' }, text: 'Ship it.', now: Date.now() }));
    expect(JSON.stringify(doc.watcher.ydoc.toJSON())).not.toContain('Ship it.');
  });

  it('[NOTES10] refuses a comment or a reply dated in the future', async () => {
    const doc = await watchedDoc();
    await expectRefused(doc, ed, 'NOTES10', (ydoc) => addAnnotation(ydoc, author(ed), { text: 'pinned on top', now: Date.now() + 365 * 24 * hour }));
    await expectRefused(doc, cora, 'NOTES10', (ydoc) => addTurn(ydoc, doc.comment, { author: author(cora), text: 'from 2099', now: Date.UTC(2099, 0) }));
    expect(JSON.stringify(doc.watcher.ydoc.toJSON())).not.toMatch(/pinned on top|from 2099/);
  });

  it('[NOTES10] accepts a comment and a reply written offline three hours ago when the device comes back', async () => {
    const doc = await watchedDoc();
    const offline = new Y.Doc();
    Y.applyUpdate(offline, Y.encodeStateAsUpdate(doc.watcher.ydoc));
    const written = Date.now() - 3 * hour;
    const comment = addAnnotation(offline, author(cora), { text: 'written on the train', now: written });
    addTurn(offline, doc.comment, { author: author(cora), text: 'agreed, from the train', now: written + 60_000 });
    const back = notesPeer(server, doc.id, cora, offline);
    await back.synced;
    await waitFor(() => readAnnotation(doc.watcher.ydoc, comment).ok);
    await waitFor(() => {
      const first = readAnnotation(doc.watcher.ydoc, doc.comment);
      return first.ok && first.annotation.turns.length === 2;
    });
    expect(back.closed).toEqual([]);
    await server.restart();
    const stored = await serverNotes(server, doc.id);
    expect(stored).toContain('written on the train');
    expect(stored).toContain('agreed, from the train');
  });

  it('[NOTES11] refuses an update that writes a top-level type other than the annotations, even beside an honest change', async () => {
    const doc = await watchedDoc();
    await expectRefused(doc, ed, 'NOTES11', (ydoc) => ydoc.getText('stash').insert(0, 'kept for free'));
    await expectRefused(doc, ed, 'NOTES11', (ydoc) =>
      ydoc.transact(() => {
        addTurn(ydoc, doc.comment, { author: author(ed), text: 'an honest reply', now: Date.now() });
        ydoc.getMap('sidecar').set('blob', 'kept for free');
      }),
    );
    const json = JSON.stringify(doc.watcher.ydoc.toJSON());
    expect(json).not.toContain('kept for free');
    expect(json).not.toContain('an honest reply');
    expect([...doc.watcher.ydoc.share.keys()]).toEqual(['annotations']);
  });

  it('[NOTES12] refuses an update larger than the limit, a stash in a made-up text or a heap of comments, closing with 4413', async () => {
    const doc = await watchedDoc();
    const logged = vi.spyOn(console, 'error');
    onTestFinished(() => logged.mockRestore());
    await expectRefused(doc, cora, 'NOTES12', (ydoc) => ydoc.getText('stash').insert(0, 'x'.repeat(maxNotesUpdateBytes + 1000)));
    await expectRefused(doc, cora, 'NOTES12', (ydoc) =>
      ydoc.transact(() => {
        for (let index = 0; index * 9_000 < maxNotesUpdateBytes + 9_000; index++) {
          addAnnotation(ydoc, author(cora), { text: `${index} ${'y'.repeat(9_000)}` });
        }
      }),
    );
    expect(notesSummary(doc.watcher.ydoc).length).toBeLessThan(10_000);
    const closeCodes = logged.mock.calls.flat().flatMap((arg) => (arg instanceof Error && arg.name === 'NotesWriteRefused' ? [(arg as Error & { code: number }).code] : []));
    expect(closeCodes.length).toBeGreaterThanOrEqual(2);
    expect(new Set(closeCodes)).toEqual(new Set([4413]));
  });

  it('[NOTES11] deletes, when the notes load, content stored outside the annotations before the guard refused it', async () => {
    const doc = await watchedDoc();
    doc.watcher.destroy();
    await server.stop();
    const stash = 'stowaway '.repeat(20_000);
    await rewriteStoredNotes(doc.id, (ydoc) => ydoc.getText('stash').insert(0, stash));
    await server.restart();

    const reader = notesPeer(server, doc.id, { sub: 'vera', name: 'Vera', role: 'viewer' });
    await reader.synced;
    expect(readAnnotation(reader.ydoc, doc.comment).ok).toBe(true);
    expect(reader.ydoc.getText('stash').toString()).toBe('');
    expect(Y.encodeStateAsUpdate(reader.ydoc).length).toBeLessThan(5_000);
    reader.destroy();
    await server.restart();
    const stored = await storedNotes(doc.id);
    expect(stored.length).toBeLessThan(5_000);
  });
});

/** Changes the notes of `docId` straight in the store of the stopped server. */
async function rewriteStoredNotes(docId: string, change: (ydoc: Y.Doc) => void): Promise<void> {
  const store = await server.openStore();
  try {
    const ydoc = new Y.Doc();
    Y.applyUpdate(ydoc, (await store.loadState(docName(docId, 'notes')))!);
    change(ydoc);
    const name = docName(docId, 'notes');
    await store.updates.compact(name, Y.encodeStateAsUpdate(ydoc), (await store.updates.read(name)).lastSeq);
  } finally {
    await store.close();
  }
}

/** The stored state of the notes of `docId`, read beside the running server. */
async function storedNotes(docId: string): Promise<Uint8Array> {
  const store = await server.openStore();
  try {
    return (await store.loadState(docName(docId, 'notes')))!;
  } finally {
    await store.close();
  }
}
