import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { addTurn, setInstructionState } from '../../shared/annotations-writers.ts';
import { readAnnotations } from '../../shared/annotations.ts';
import { serverOrigin } from '../../shared/origins.ts';
import { NotesShadow } from '../../server/extensions/notes-shadow.ts';
import { addAnnotation } from '../helpers/notes.ts';

const ed = { id: 'ed', name: 'Ed' };
const cora = { id: 'cora', name: 'Cora' };

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
    expect(shadow.judge(editor.updates[0], { id: 'ed', role: 'editor' })).toMatchObject({ ok: false, refusal: { rule: 'NOTES6' } });
  });

  it('keeps judging correctly after a refusal, the refused change forgotten', () => {
    const live = new Y.Doc();
    const comment = addAnnotation(live, ed, { text: 'mine' });
    const shadow = new NotesShadow(live);
    const commenter = client(live);
    addAnnotation(commenter.ydoc, cora, { kind: 'instruction', text: 'delete' });
    expect(shadow.judge(commenter.updates[0], { id: 'cora', role: 'commenter' })).toMatchObject({ ok: false, kind: 'refused' });
    const honest = client(live);
    addTurn(honest.ydoc, comment, { author: cora, text: 'a reply', now: 5 });
    const verdict = shadow.judge(honest.updates[0], { id: 'cora', role: 'commenter' });
    expect(verdict).toEqual({ ok: true });
    Y.applyUpdate(live, honest.updates[0]);
    expect(readAnnotations(live).annotations.map((note) => note.kind)).toEqual(['comment']);
  });

  it('calls an update incomplete when it depends on changes it does not carry', () => {
    const live = new Y.Doc();
    const shadow = new NotesShadow(live);
    const editor = client(live);
    const note = addAnnotation(editor.ydoc, ed, { text: 'never sent' });
    addTurn(editor.ydoc, note, { author: ed, text: 'reply', now: 5 });
    expect(shadow.judge(editor.updates[1], { id: 'ed', role: 'editor' })).toMatchObject({ ok: false, kind: 'incomplete' });
    expect(shadow.judge(editor.updates[0], { id: 'ed', role: 'editor' })).toEqual({ ok: true });
    expect(shadow.judge(new Uint8Array([1, 2, 3]), { id: 'ed', role: 'editor' })).toMatchObject({ ok: false, kind: 'incomplete' });
  });
});
