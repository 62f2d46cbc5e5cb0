import { Hocuspocus } from '@hocuspocus/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { AsideMirror } from '../../server/runs/aside-mirror.ts';
import { docName, runsParts } from '../../shared/model/doc-layout.ts';
import { asideRecord } from '../helpers/asides.ts';

/*
 * AsideMirror.settle: with several instances, a chunk of an answer mirrored by one instance and
 * the aside's end mirrored by another can reach the `<id>/runs` map as concurrent sets, which
 * Yjs orders by client id. Here instance A is a real Hocuspocus writing through the mirror, and
 * instance B's replica of the runs document a Y.Doc exchanging updates with it, as Redis would
 * relay them.
 */

const docId = 'doc1';
const record = asideRecord;

let hocuspocus: Hocuspocus;
let mirror: AsideMirror;
let errors: unknown[];
/** Holds instance A's copy of the runs document loaded (this Hocuspocus stores nothing). */
let held: Awaited<ReturnType<Hocuspocus['openDirectConnection']>>;

beforeEach(async () => {
  hocuspocus = new Hocuspocus({ quiet: true });
  errors = [];
  mirror = new AsideMirror(hocuspocus, (error) => errors.push(error));
  held = await hocuspocus.openDirectConnection(docName(docId, 'runs'));
});
afterEach(async () => {
  await held.disconnect();
  expect(errors).toEqual([]);
});

/** Instance A's copy of the runs document. */
async function onA<T>(use: (ydoc: Y.Doc) => T | Promise<T>): Promise<T> {
  return use(held.document!);
}

function exchange(one: Y.Doc, other: Y.Doc): void {
  const toOther = Y.encodeStateAsUpdate(one, Y.encodeStateVector(other));
  const toOne = Y.encodeStateAsUpdate(other, Y.encodeStateVector(one));
  Y.applyUpdate(other, toOther);
  Y.applyUpdate(one, toOne);
}

describe('the asides mirror', () => {
  it('puts an ended aside back over a concurrent chunk that Yjs let win', async () => {
    const started = record({ answer: 'Working' });
    const ended = record({ answer: '', route: 'agent', done: true, note: 'The question went to the run as a steer.' });
    await mirror.write(docId, started);
    await onA(async (a) => {
      // B holds what A held, with a higher client id: of two concurrent sets, B's wins.
      const b = new Y.Doc();
      b.clientID = a.clientID + 1;
      Y.applyUpdate(b, Y.encodeStateAsUpdate(a));
      runsParts(b).asides.set('aside-1', record({ answer: 'Working on it' }));
      await mirror.write(docId, ended);
      exchange(a, b);
      expect(runsParts(a).asides.get('aside-1')).toEqual(record({ answer: 'Working on it' }));

      await mirror.settle(docId, ended);
      exchange(a, b);
      expect(runsParts(a).asides.get('aside-1')).toEqual(ended);
      expect(runsParts(b).asides.get('aside-1')).toEqual(ended);
    });
  });

  it('writes nothing when the map holds the record already, or no longer holds the aside', async () => {
    const ended = record({ answer: 'Yes.', route: 'side', done: true });
    await mirror.write(docId, ended);
    const before = await onA((a) => Y.encodeStateVector(a));
    await mirror.settle(docId, ended);
    expect(await onA((a) => Y.encodeStateVector(a))).toEqual(before);

    // The run ended: its asides were dropped, and settling does not bring one back.
    await onA((a) => runsParts(a).asides.delete('aside-1'));
    await mirror.settle(docId, ended);
    expect(await onA((a) => runsParts(a).asides.has('aside-1'))).toBe(false);
  });
});
