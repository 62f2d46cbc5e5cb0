import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hocuspocus } from '@hocuspocus/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readAnnotations } from '../../shared/notes/annotations.ts';
import { readBlocks } from '../../shared/model/doc-content.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import { readRunRecords } from '../../shared/protocol/run-record.ts';
import { createDoc } from '../../server/docs/create-doc.ts';
import { readDocState } from '../../server/docs/read-doc.ts';
import { withDocument } from '../../server/docs/with-document.ts';
import { Persistence } from '../../server/sync/persistence.ts';
import { RunMirror } from '../../server/runs/run-mirror.ts';
import { sendRun } from '../../server/runs/send-run.ts';
import { openSqliteStore } from '../../server/store/sqlite-store.ts';
import type { DocRecord, NewRun, Store, SyncStore } from '../../server/store/store.ts';
import { closeHocuspocus } from '../../server/shutdown.ts';
import { pinAnnotation } from '../helpers/notes.ts';

let dataDir: string;
let store: SyncStore;
let hocuspocus: Hocuspocus;
let doc: DocRecord;
const ed = { id: 'ed', name: 'Ed' };

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tandem-send-'));
  store = openSqliteStore(dataDir);
  hocuspocus = new Hocuspocus({ quiet: true, extensions: [new Persistence({ log: store.updates, onError: (error) => console.error(error) })] });
  // As the composition root wires it: every change of a run is mirrored.
  const mirror = new RunMirror(hocuspocus, store.runs);
  store.runs.onRunChanged((runId, docId) => mirror.refresh(docId, runId));
  doc = await createDoc(store, { kind: 'text', title: 'Race', markdown: 'one\n\ntwo' });
  await withDocument(hocuspocus, docName(doc.id), (text) =>
    withDocument(hocuspocus, docName(doc.id, 'notes'), (notes) => {
      for (const [index, block] of readBlocks(text).entries()) {
        pinAnnotation(notes, text, block.id, ed, { kind: 'instruction', text: `uppercase ${index}` });
      }
    }),
  );
});
afterEach(async () => {
  await closeHocuspocus(hocuspocus);
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The store, except that `createRun` waits until `count` calls have arrived, then lets them all go. */
function storeWithBarrier(count: number): Store {
  const waiting: (() => void)[] = [];
  const createRun = async (run: NewRun) => {
    await new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (waiting.length === count) for (const release of waiting) release();
    });
    return store.runs.createRun(run);
  };
  return Object.assign(Object.create(store) as Store, { runs: { ...store.runs, createRun } });
}

describe('sendRun', () => {
  it('lets the run store decide between sends that all read the same queue', async () => {
    const racing = storeWithBarrier(4);
    const deps = { store: racing, hocuspocus };
    const results = await Promise.all(Array.from({ length: 4 }, () => sendRun(deps, doc, ed)));
    const winners = results.filter((result) => result.ok);
    expect(winners).toHaveLength(1);
    expect(results.filter((result) => !result.ok).map((result) => !result.ok && result.code)).toEqual(Array(3).fill('RUN_OUTSTANDING'));
    const runId = winners[0].ok ? winners[0].run.id : '';
    const notes = await readDocState(hocuspocus, store, docName(doc.id, 'notes'), (ydoc) => readAnnotations(ydoc).annotations);
    expect(notes.map((note) => note.kind === 'instruction' && [note.state, note.runId])).toEqual([
      ['sent', runId],
      ['sent', runId],
    ]);
    const mirror = await readDocState(hocuspocus, store, docName(doc.id, 'runs'), (ydoc) => readRunRecords(ydoc).runs);
    expect(mirror.map((run) => run.runId)).toEqual([runId]);
  });

  it('carries the whole document as Markdown for context', async () => {
    const result = await sendRun({ store, hocuspocus }, doc, ed);
    expect(result.ok && result.run.contextMarkdown).toBe('one\n\ntwo');
  });
});
