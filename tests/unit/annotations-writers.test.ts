import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { readAnnotation, readAnnotations, type Annotation } from '../../shared/notes/annotations.ts';
import {
  addTurn,
  createAnnotation,
  deleteAnnotation,
  editInstructionText,
  escalateComment,
  setAnchor,
  setInstructionState,
  restoreInstructionState,
  setResolved,
  type NewAnnotation,
} from '../../shared/notes/annotations-writers.ts';
import { notesParts } from '../../shared/model/doc-layout.ts';
import { serverOrigin } from '../../shared/model/origins.ts';
import { sampleAnchor } from '../helpers/notes.ts';

const anchor = sampleAnchor;
const ada = { id: 'u-ada', name: 'Ada' };
const bob = { id: 'u-bob', name: 'Bob' };

function input(overrides: Partial<NewAnnotation> = {}): NewAnnotation {
  return { kind: 'comment', anchor, blockId: 'bblock0001', quote: 'brave', author: ada, text: 'Why brave?', now: 1000, ...overrides };
}

function read(ydoc: Y.Doc, id: string): Annotation {
  const result = readAnnotation(ydoc, id);
  if (!result.ok) throw new Error(result.reason);
  return result.annotation;
}

function sync(a: Y.Doc, b: Y.Doc): void {
  Y.applyUpdate(b, Y.encodeStateAsUpdate(a, Y.encodeStateVector(b)));
  Y.applyUpdate(a, Y.encodeStateAsUpdate(b, Y.encodeStateVector(a)));
}

function replicaOf(ydoc: Y.Doc): Y.Doc {
  const copy = new Y.Doc();
  Y.applyUpdate(copy, Y.encodeStateAsUpdate(ydoc));
  return copy;
}

function created(ydoc: Y.Doc, overrides: Partial<NewAnnotation> = {}): string {
  const result = createAnnotation(ydoc, input(overrides));
  if (!result.ok) throw new Error(result.error.message);
  return result.id;
}

describe('createAnnotation', () => {
  it('writes a comment that reads back, in one transaction with the given origin', () => {
    const ydoc = new Y.Doc();
    const origins: unknown[] = [];
    ydoc.on('afterTransaction', (tr: Y.Transaction) => origins.push(tr.origin));
    const result = createAnnotation(ydoc, input({ id: 'c1' }), serverOrigin);
    expect(result).toEqual({ ok: true, id: 'c1' });
    expect(origins).toEqual([serverOrigin]);
    expect(read(ydoc, 'c1')).toEqual({
      id: 'c1',
      kind: 'comment',
      anchor,
      blockId: 'bblock0001',
      quote: 'brave',
      author: ada,
      createdAt: 1000,
      turns: [{ author: ada, text: 'Why brave?', at: 1000 }],
      resolved: false,
    });
    expect(notesParts(ydoc).annotations.get('c1')).toBeInstanceOf(Y.Map);
  });

  it('writes an instruction as queued with no run unless told otherwise, under a fresh id', () => {
    const ydoc = new Y.Doc();
    const id = created(ydoc, { kind: 'instruction', text: 'uppercase' });
    expect(id).toMatch(/^[0-9a-z]{10}$/);
    expect(read(ydoc, id)).toMatchObject({ kind: 'instruction', state: 'queued', runId: null, fromCommentId: null });
    const draft = created(ydoc, { kind: 'instruction', text: 'delete', state: 'draft' });
    expect(read(ydoc, draft)).toMatchObject({ state: 'draft' });
  });

  const refusals: [string, Partial<NewAnnotation>, string][] = [
    ['blank text', { text: ' \n\t ' }, 'INVALID_TEXT'],
    ['text over 10,000 characters', { text: 'x'.repeat(10_001) }, 'INVALID_TEXT'],
    ['a quote over 2,000 characters', { quote: 'q'.repeat(2_001) }, 'INVALID_QUOTE'],
    ['an author without id', { author: { id: '', name: 'Ada' } }, 'INVALID_AUTHOR'],
    ['a malformed anchor', { anchor: { from: anchor.from } as never }, 'INVALID_ANCHOR'],
    ['a malformed block id', { blockId: 'a b' }, 'INVALID_BLOCK'],
    ['a malformed id', { id: 'a/b' }, 'INVALID_ID'],
    ['an id already taken', { id: 'taken' }, 'ID_TAKEN'],
  ];

  it.each(refusals)('refuses %s and changes nothing', (_name, overrides, code) => {
    const ydoc = new Y.Doc();
    created(ydoc, { id: 'taken' });
    const before = Y.encodeStateAsUpdate(ydoc);
    const result = createAnnotation(ydoc, input(overrides));
    expect(result.ok === false && result.error.code).toBe(code);
    expect(Y.encodeStateAsUpdate(ydoc)).toEqual(before);
  });

  it('accepts text of exactly 10,000 characters and a quote of exactly 2,000', () => {
    const ydoc = new Y.Doc();
    expect(createAnnotation(ydoc, input({ text: 'x'.repeat(10_000), quote: 'q'.repeat(2_000) })).ok).toBe(true);
  });

  it('throws a RangeError for an unknown kind or a time that is not one', () => {
    const ydoc = new Y.Doc();
    expect(() => createAnnotation(ydoc, input({ kind: 'note' as never }))).toThrow(RangeError);
    expect(() => createAnnotation(ydoc, input({ now: Number.NaN }))).toThrow(RangeError);
    expect(notesParts(ydoc).annotations.size).toBe(0);
  });
});

describe('replies and resolution', () => {
  it('keeps replies added concurrently on two replicas, in the same order on both', () => {
    const a = new Y.Doc();
    const id = created(a);
    const b = replicaOf(a);
    expect(addTurn(a, id, { author: ada, text: 'Because it is.', now: 2000 })).toEqual({ ok: true });
    expect(addTurn(b, id, { author: bob, text: 'I would say bold.', now: 2001 })).toEqual({ ok: true });
    sync(a, b);
    const turnsA = read(a, id).turns.map((t) => t.text);
    expect(turnsA).toHaveLength(3);
    expect(turnsA[0]).toBe('Why brave?');
    expect(new Set(turnsA.slice(1))).toEqual(new Set(['Because it is.', 'I would say bold.']));
    expect(read(b, id)).toEqual(read(a, id));
  });

  it('keeps a resolve and a concurrent reply from different people', () => {
    const a = new Y.Doc();
    const id = created(a);
    const b = replicaOf(a);
    setResolved(a, id, true);
    addTurn(b, id, { author: bob, text: 'Late reply', now: 3000 });
    sync(a, b);
    expect(read(a, id)).toMatchObject({ resolved: true, turns: [{ text: 'Why brave?' }, { text: 'Late reply' }] });
    expect(read(b, id)).toEqual(read(a, id));
  });

  it('refuses a blank reply, a reply to a missing annotation and a reply to an unreadable record', () => {
    const ydoc = new Y.Doc();
    const id = created(ydoc);
    notesParts(ydoc).annotations.set('broken', { id: 'broken' });
    const before = Y.encodeStateAsUpdate(ydoc);
    expect(addTurn(ydoc, id, { author: ada, text: '   ', now: 1 })).toMatchObject({ ok: false, error: { code: 'INVALID_TEXT' } });
    expect(addTurn(ydoc, 'nope', { author: ada, text: 'hi', now: 1 })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(addTurn(ydoc, 'broken', { author: ada, text: 'hi', now: 1 })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_RECORD' },
    });
    expect(Y.encodeStateAsUpdate(ydoc)).toEqual(before);
  });

  it('resolves and reopens, and deletes a record', () => {
    const ydoc = new Y.Doc();
    const id = created(ydoc);
    expect(setResolved(ydoc, id, true)).toEqual({ ok: true });
    expect(read(ydoc, id).resolved).toBe(true);
    expect(setResolved(ydoc, id, false)).toEqual({ ok: true });
    expect(read(ydoc, id).resolved).toBe(false);
    expect(deleteAnnotation(ydoc, id)).toEqual({ ok: true });
    expect(readAnnotations(ydoc).annotations).toEqual([]);
    expect(deleteAnnotation(ydoc, id)).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });
});

describe('escalateComment', () => {
  it('creates a backlinked instruction on the same pin and leaves the comment byte-identical', () => {
    const ydoc = new Y.Doc();
    const commentId = created(ydoc);
    addTurn(ydoc, commentId, { author: bob, text: 'Agreed, fix it', now: 1500 });
    const record = notesParts(ydoc).annotations.get(commentId) as Y.Map<unknown>;
    const before = JSON.stringify(record.toJSON());
    let commentEvents = 0;
    record.observeDeep(() => commentEvents++);

    const result = escalateComment(ydoc, commentId, bob, 5000, null, 'i1');

    expect(result).toEqual({ ok: true, id: 'i1' });
    expect(JSON.stringify(record.toJSON())).toBe(before);
    expect(commentEvents).toBe(0);
    expect(read(ydoc, 'i1')).toEqual({
      id: 'i1',
      kind: 'instruction',
      anchor,
      blockId: 'bblock0001',
      quote: 'brave',
      author: bob,
      createdAt: 5000,
      turns: [{ author: bob, text: 'Why brave?', at: 5000 }],
      resolved: false,
      state: 'queued',
      runId: null,
      fromCommentId: commentId,
    });
  });

  it('refuses to escalate an instruction or a missing comment, changing nothing', () => {
    const ydoc = new Y.Doc();
    const instructionId = created(ydoc, { kind: 'instruction', text: 'uppercase' });
    const before = Y.encodeStateAsUpdate(ydoc);
    expect(escalateComment(ydoc, instructionId, bob, 1)).toMatchObject({ ok: false, error: { code: 'NOT_A_COMMENT' } });
    expect(escalateComment(ydoc, 'nope', bob, 1)).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(Y.encodeStateAsUpdate(ydoc)).toEqual(before);
  });
});

describe('editInstructionText', () => {
  it('edits the work order while the instruction is draft or queued', () => {
    const ydoc = new Y.Doc();
    const id = created(ydoc, { kind: 'instruction', text: 'uppercase', state: 'draft' });
    expect(editInstructionText(ydoc, id, 'lowercase')).toEqual({ ok: true });
    setInstructionState(ydoc, id, 'queued', null);
    expect(editInstructionText(ydoc, id, 'delete')).toEqual({ ok: true });
    expect(read(ydoc, id).turns).toEqual([{ author: ada, text: 'delete', at: 1000 }]);
  });

  it('refuses to edit a sent or answered instruction, a comment, or with blank text', () => {
    const ydoc = new Y.Doc();
    const id = created(ydoc, { kind: 'instruction', text: 'uppercase' });
    const commentId = created(ydoc);
    expect(editInstructionText(ydoc, id, '')).toMatchObject({ ok: false, error: { code: 'INVALID_TEXT' } });
    expect(editInstructionText(ydoc, commentId, 'x')).toMatchObject({ ok: false, error: { code: 'NOT_AN_INSTRUCTION' } });
    setInstructionState(ydoc, id, 'sent', 'run1', serverOrigin);
    const before = Y.encodeStateAsUpdate(ydoc);
    expect(editInstructionText(ydoc, id, 'lowercase')).toMatchObject({ ok: false, error: { code: 'NOT_EDITABLE' } });
    expect(Y.encodeStateAsUpdate(ydoc)).toEqual(before);
    setInstructionState(ydoc, id, 'answered', 'run1', serverOrigin);
    expect(editInstructionText(ydoc, id, 'lowercase')).toMatchObject({ ok: false, error: { code: 'NOT_EDITABLE' } });
    expect(read(ydoc, id).turns[0].text).toBe('uppercase');
  });

  it('converges on one text when two people edit the work order concurrently', () => {
    const a = new Y.Doc();
    const id = created(a, { kind: 'instruction', text: 'uppercase' });
    const b = replicaOf(a);
    editInstructionText(a, id, 'lowercase');
    editInstructionText(b, id, 'delete');
    sync(a, b);
    expect(read(a, id).turns).toHaveLength(1);
    expect(['lowercase', 'delete']).toContain(read(a, id).turns[0].text);
    expect(read(b, id)).toEqual(read(a, id));
  });
});

describe('setInstructionState', () => {
  it('moves an instruction from queued to sent to answered with its run', () => {
    const ydoc = new Y.Doc();
    const id = created(ydoc, { kind: 'instruction', text: 'uppercase' });
    expect(setInstructionState(ydoc, id, 'sent', 'run1', serverOrigin)).toEqual({ ok: true });
    expect(read(ydoc, id)).toMatchObject({ state: 'sent', runId: 'run1' });
    expect(setInstructionState(ydoc, id, 'sent', 'run1', serverOrigin)).toEqual({ ok: true });
    expect(setInstructionState(ydoc, id, 'answered', 'run1', serverOrigin)).toEqual({ ok: true });
    expect(read(ydoc, id)).toMatchObject({ state: 'answered', runId: 'run1' });
  });

  it('puts a sent instruction back in the queue when its run fails', () => {
    const ydoc = new Y.Doc();
    const id = created(ydoc, { kind: 'instruction', text: 'uppercase' });
    setInstructionState(ydoc, id, 'sent', 'run1');
    expect(setInstructionState(ydoc, id, 'queued', null)).toEqual({ ok: true });
    expect(read(ydoc, id)).toMatchObject({ state: 'queued', runId: null });
  });

  it('refuses transitions outside the lifecycle and answers from another run, changing nothing', () => {
    const ydoc = new Y.Doc();
    const id = created(ydoc, { kind: 'instruction', text: 'uppercase', state: 'draft' });
    const commentId = created(ydoc);
    expect(setInstructionState(ydoc, id, 'sent', 'run1')).toMatchObject({ ok: false, error: { code: 'INVALID_TRANSITION' } });
    setInstructionState(ydoc, id, 'queued', null);
    setInstructionState(ydoc, id, 'sent', 'run1');
    const before = Y.encodeStateAsUpdate(ydoc);
    expect(setInstructionState(ydoc, id, 'answered', 'run2')).toMatchObject({ ok: false, error: { code: 'INVALID_TRANSITION' } });
    expect(setInstructionState(ydoc, id, 'draft', null)).toMatchObject({ ok: false, error: { code: 'INVALID_TRANSITION' } });
    expect(setInstructionState(ydoc, commentId, 'queued', null)).toMatchObject({
      ok: false,
      error: { code: 'NOT_AN_INSTRUCTION' },
    });
    expect(setInstructionState(ydoc, 'nope', 'queued', null)).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(Y.encodeStateAsUpdate(ydoc)).toEqual(before);
  });

  it('throws a RangeError when the run does not fit the state', () => {
    const ydoc = new Y.Doc();
    const id = created(ydoc, { kind: 'instruction', text: 'uppercase' });
    expect(() => setInstructionState(ydoc, id, 'sent', null)).toThrow(RangeError);
    expect(() => setInstructionState(ydoc, id, 'queued', 'run1')).toThrow(RangeError);
    expect(() => setInstructionState(ydoc, id, 'done' as never, null)).toThrow(RangeError);
  });
});

describe('restoreInstructionState', () => {
  it('[NOTES13] wins over a concurrent state set on every replica, whichever client id is higher', () => {
    for (const [serverId, editorId] of [
      [1, 2],
      [2, 1],
    ]) {
      const live = new Y.Doc();
      live.clientID = serverId;
      const id = created(live, { kind: 'instruction', text: 'uppercase' });
      const editor = replicaOf(live);
      editor.clientID = editorId;
      setInstructionState(live, id, 'sent', 'run1', serverOrigin);
      setInstructionState(editor, id, 'draft', null);
      Y.applyUpdate(live, Y.encodeStateAsUpdate(editor, Y.encodeStateVector(live)));
      restoreInstructionState(live, { id, state: 'sent', runId: 'run1' }, serverOrigin);
      sync(live, editor);
      expect(read(live, id)).toMatchObject({ state: 'sent', runId: 'run1' });
      expect(read(editor, id)).toEqual(read(live, id));
    }
  });

  it('writes nothing when the record already holds the state, or is gone', () => {
    const ydoc = new Y.Doc();
    const id = created(ydoc, { kind: 'instruction', text: 'uppercase' });
    setInstructionState(ydoc, id, 'sent', 'run1', serverOrigin);
    const before = Y.encodeStateAsUpdate(ydoc);
    restoreInstructionState(ydoc, { id, state: 'sent', runId: 'run1' });
    restoreInstructionState(ydoc, { id: 'gone', state: 'sent', runId: 'run1' });
    expect(Y.encodeStateAsUpdate(ydoc)).toEqual(before);
  });
});

describe('setAnchor', () => {
  it('re-pins a record and keeps its quote', () => {
    const ydoc = new Y.Doc();
    const id = created(ydoc);
    const moved = { from: { ...anchor.from, item: { client: 2, clock: 0 } }, to: { ...anchor.to, item: { client: 2, clock: 4 } } };
    expect(setAnchor(ydoc, id, { anchor: moved, blockId: 'bother0001' })).toEqual({ ok: true });
    expect(read(ydoc, id)).toMatchObject({ anchor: moved, blockId: 'bother0001', quote: 'brave' });
    expect(setAnchor(ydoc, id, { anchor: {} as never, blockId: 'b1' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ANCHOR' },
    });
  });
});
