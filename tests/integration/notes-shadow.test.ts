import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { addTurn, deleteAnnotation, setInstructionState, setResolved } from '../../shared/notes/annotations-writers.ts';
import { readAnnotations } from '../../shared/notes/annotations.ts';
import { serverOrigin } from '../../shared/model/origins.ts';
import { NotesShadow } from '../../server/extensions/notes-shadow.ts';
import { addAnnotation } from '../helpers/notes.ts';

const ed = { id: 'ed', name: 'Ed' };
const cora = { id: 'cora', name: 'Cora' };
const clock = { now: Date.now(), earliest: 0 };

/** A client replica of `live` whose next changes are collected as updates. */
function client(live: Y.Doc): { ydoc: Y.Doc; updates: Uint8Array[] } {
  const ydoc = new Y.Doc();
  Y.applyUpdate(ydoc, Y.encodeStateAsUpdate(live));
  const updates: Uint8Array[] = [];
  ydoc.on('update', (update: Uint8Array) => updates.push(update));
  return { ydoc, updates };
}

describe('NotesShadow', () => {
  it('judges each update against the live document as it is now, server writes included', () => {
    const live = new Y.Doc();
    const instruction = addAnnotation(live, ed, { kind: 'instruction', text: 'uppercase' });
    const shadow = new NotesShadow(live);
    setInstructionState(live, instruction, 'sent', 'r1', serverOrigin);
    const editor = client(live);
    setInstructionState(editor.ydoc, instruction, 'queued', null);
    expect(shadow.judge(editor.updates[0], { ...ed, role: 'editor' }, clock)).toEqual({
      ok: true,
      held: [{ id: instruction, state: 'sent', runId: 'r1' }],
    });
    setInstructionState(live, instruction, 'answered', 'r1', serverOrigin);
    const commenter = client(live);
    setResolved(commenter.ydoc, instruction, true);
    expect(shadow.judge(commenter.updates[0], { ...cora, role: 'commenter' }, clock)).toMatchObject({ ok: false, refusal: { rule: 'NOTES7' } });
  });

  it('keeps judging correctly after a refusal, the refused change forgotten', () => {
    const live = new Y.Doc();
    const comment = addAnnotation(live, ed, { text: 'mine' });
    const shadow = new NotesShadow(live);
    const commenter = client(live);
    addAnnotation(commenter.ydoc, cora, { kind: 'instruction', text: 'delete' });
    expect(shadow.judge(commenter.updates[0], { ...cora, role: 'commenter' }, clock)).toMatchObject({ ok: false, kind: 'refused' });
    const honest = client(live);
    addTurn(honest.ydoc, comment, { author: cora, text: 'a reply', now: 5 });
    const verdict = shadow.judge(honest.updates[0], { ...cora, role: 'commenter' }, clock);
    expect(verdict).toEqual({ ok: true, held: [] });
    Y.applyUpdate(live, honest.updates[0]);
    expect(readAnnotations(live).annotations.map((note) => note.kind)).toEqual(['comment']);
  });

  it('calls an update incomplete when it depends on changes it does not carry', () => {
    const live = new Y.Doc();
    const shadow = new NotesShadow(live);
    const editor = client(live);
    const note = addAnnotation(editor.ydoc, ed, { text: 'never sent' });
    addTurn(editor.ydoc, note, { author: ed, text: 'reply', now: 5 });
    expect(shadow.judge(editor.updates[1], { ...ed, role: 'editor' }, clock)).toMatchObject({ ok: false, kind: 'incomplete' });
    expect(shadow.judge(editor.updates[0], { ...ed, role: 'editor' }, clock)).toEqual({ ok: true, held: [] });
    expect(shadow.judge(new Uint8Array([1, 2, 3]), { ...ed, role: 'editor' }, clock)).toMatchObject({ ok: false, kind: 'incomplete' });
  });

  it('[NOTES11] refuses an update that inserts anything outside the annotations map, and forgets it', () => {
    const live = new Y.Doc();
    const comment = addAnnotation(live, ed, { text: 'mine' });
    const shadow = new NotesShadow(live);
    const before = Y.encodeStateAsUpdate(live);
    for (const forge of [
      (ydoc: Y.Doc) => ydoc.getText('stash').insert(0, 'x'.repeat(1000)),
      (ydoc: Y.Doc) => ydoc.getMap('annotations-two').set('k', 'v'),
      (ydoc: Y.Doc) =>
        ydoc.transact(() => {
          addTurn(ydoc, comment, { author: ed, text: 'an honest reply', now: Date.now() });
          ydoc.getArray('side').push([1]);
        }),
    ]) {
      const editor = client(live);
      forge(editor.ydoc);
      expect(shadow.judge(editor.updates[0], { ...ed, role: 'editor' }, clock)).toMatchObject({ ok: false, refusal: { rule: 'NOTES11' } });
    }
    expect(Y.encodeStateAsUpdate(live)).toEqual(before);
    const honest = client(live);
    addTurn(honest.ydoc, comment, { author: ed, text: 'a reply', now: Date.now() });
    expect(shadow.judge(honest.updates[0], { ...ed, role: 'editor' }, clock)).toEqual({ ok: true, held: [] });
  });

  it('[NOTES11] lets an update delete what lies outside the annotations map', () => {
    const live = new Y.Doc();
    live.getText('stash').insert(0, 'left over');
    const shadow = new NotesShadow(live);
    const editor = client(live);
    editor.ydoc.getText('stash').delete(0, 4);
    expect(shadow.judge(editor.updates[0], { ...ed, role: 'editor' }, clock)).toEqual({ ok: true, held: [] });
  });

  it('[NOTES12] refuses an update over the size limit, and one that grows the document past its limit', () => {
    const live = new Y.Doc();
    const shadow = new NotesShadow(live, { updateBytes: 4000, docBytes: 6000 });
    const editor = client(live);
    addAnnotation(editor.ydoc, ed, { text: 'x'.repeat(5000) });
    expect(shadow.judge(editor.updates[0], { ...ed, role: 'editor' }, clock)).toMatchObject({ ok: false, refusal: { rule: 'NOTES12' } });

    const notes: string[] = [];
    for (let index = 0; ; index++) {
      const writer = client(live);
      notes.push(addAnnotation(writer.ydoc, ed, { text: `${index} ${'y'.repeat(1500)}` }));
      const verdict = shadow.judge(writer.updates[0], { ...ed, role: 'editor' }, clock);
      if (!verdict.ok) {
        expect(verdict).toMatchObject({ kind: 'refused', refusal: { rule: 'NOTES12' } });
        break;
      }
      Y.applyUpdate(live, writer.updates[0]);
    }
    expect(Y.encodeStateAsUpdate(live).length).toBeLessThanOrEqual(6000);
    expect(readAnnotations(live).annotations.length).toBe(notes.length - 1);
    const cleaner = client(live);
    deleteAnnotation(cleaner.ydoc, notes[0]);
    expect(shadow.judge(cleaner.updates[0], { ...ed, role: 'editor' }, clock)).toEqual({ ok: true, held: [] });
  });
});
