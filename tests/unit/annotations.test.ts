import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { parseAnnotation, readAnnotation, readAnnotations } from '../../shared/notes/annotations.ts';
import { notesParts } from '../../shared/model/doc-layout.ts';
import { sampleAnchor } from '../helpers/notes.ts';

const anchor = sampleAnchor;
const ada = { id: 'u-ada', name: 'Ada' };

function comment(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'a1',
    kind: 'comment',
    anchor,
    blockId: 'bblock0001',
    quote: 'brave',
    author: ada,
    createdAt: 1_700_000_000_000,
    turns: [{ author: ada, text: 'Is this the right word?', at: 1_700_000_000_000 }],
    resolved: false,
    ...overrides,
  };
}

function instruction(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return comment({ kind: 'instruction', state: 'queued', runId: null, fromCommentId: null, ...overrides });
}

function without(record: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...record };
  delete copy[key];
  return copy;
}

describe('parseAnnotation', () => {
  it('reads a valid comment and a valid instruction', () => {
    expect(parseAnnotation(comment())).toEqual({ ok: true, annotation: comment() });
    expect(parseAnnotation(instruction({ state: 'sent', runId: 'r1', fromCommentId: 'a0' }))).toEqual({
      ok: true,
      annotation: instruction({ state: 'sent', runId: 'r1', fromCommentId: 'a0' }),
    });
  });

  it('reads a record without kind as a comment and ignores instruction fields on a comment', () => {
    const result = parseAnnotation(without(comment({ state: 'bogus' }), 'kind'));
    expect(result.ok && result.annotation.kind).toBe('comment');
    expect(result.ok && 'state' in result.annotation).toBe(false);
  });

  it('reads a record stored as a Y.Map with its turns as Y.Maps in a Y.Array', () => {
    const ydoc = new Y.Doc();
    const record = new Y.Map<unknown>(Object.entries(without(comment(), 'turns')));
    const turns = new Y.Array<Y.Map<unknown>>();
    const [turn] = comment().turns as Record<string, unknown>[];
    turns.push([new Y.Map<unknown>(Object.entries(turn))]);
    record.set('turns', turns);
    notesParts(ydoc).annotations.set('a1', record);
    expect(parseAnnotation(notesParts(ydoc).annotations.get('a1'))).toEqual({ ok: true, annotation: comment() });
  });

  const bad: [string, unknown, string][] = [
    ['not an object', 'hello', 'the record is not an object'],
    ['an array', [comment()], 'the record is not an object'],
    ['null', null, 'the record is not an object'],
    ['an unknown kind', comment({ kind: 'note' }), 'kind must be "comment" or "instruction"'],
    ['a null kind', comment({ kind: null }), 'kind must be "comment" or "instruction"'],
    ['a missing id', without(comment(), 'id'), 'id must be 1 to 64 letters, digits, "_" or "-"'],
    ['an id with a slash', comment({ id: 'a/b' }), 'id must be 1 to 64 letters, digits, "_" or "-"'],
    ['a missing anchor', without(comment(), 'anchor'), 'anchor must be an object {from, to}'],
    ['an anchor without to', comment({ anchor: { from: anchor.from } }), 'anchor to must be a relative position object'],
    [
      'an anchor naming no type',
      comment({ anchor: { from: { item: { client: 1, clock: 2 } }, to: anchor.to } }),
      'anchor from names no type',
    ],
    [
      'an anchor with a negative clock',
      comment({ anchor: { from: anchor.from, to: { tname: 'content', item: { client: 1, clock: -1 } } } }),
      'anchor to has a malformed item id',
    ],
    [
      'an anchor with a fractional assoc',
      comment({ anchor: { from: { ...anchor.from, assoc: 0.5 }, to: anchor.to } }),
      'anchor from has a malformed assoc',
    ],
    ['a missing blockId', without(comment(), 'blockId'), 'blockId must be 1 to 64 letters, digits, "_" or "-"'],
    ['a numeric quote', comment({ quote: 5 }), 'quote must be a string of at most 2000 characters'],
    ['a quote too long', comment({ quote: 'q'.repeat(2001) }), 'quote must be a string of at most 2000 characters'],
    ['an author without id', comment({ author: { name: 'Ada' } }), 'author id must be a non-empty string of at most 200 characters'],
    ['an author as a string', comment({ author: 'Ada' }), 'author must be an object {id, name}'],
    ['a createdAt as a string', comment({ createdAt: '2024-01-01' }), 'createdAt must be a time in milliseconds'],
    ['a negative createdAt', comment({ createdAt: -1 }), 'createdAt must be a time in milliseconds'],
    ['resolved as a string', comment({ resolved: 'no' }), 'resolved must be a boolean'],
    ['no turns', comment({ turns: [] }), 'turns must be a non-empty array'],
    ['turns as an object', comment({ turns: { 0: 'x' } }), 'turns must be a non-empty array'],
    ['a turn as a string', comment({ turns: ['hi'] }), 'turns[0] is not an object'],
    [
      'a blank turn',
      comment({ turns: [{ author: ada, text: '  \n ', at: 1 }] }),
      'turns[0] text must not be empty',
    ],
    [
      'a turn too long',
      comment({ turns: [{ author: ada, text: 'ok', at: 1 }, { author: ada, text: 'x'.repeat(10_001), at: 2 }] }),
      'turns[1] text must be at most 10000 characters',
    ],
    ['a turn without time', comment({ turns: [{ author: ada, text: 'ok' }] }), 'turns[0] at must be a time in milliseconds'],
    ['a turn without author', comment({ turns: [{ text: 'ok', at: 1 }] }), 'turns[0] author must be an object {id, name}'],
    ['an instruction without state', without(instruction(), 'state'), 'state must be one of draft, queued, sent, answered'],
    ['an instruction in an unknown state', instruction({ state: 'done' }), 'state must be one of draft, queued, sent, answered'],
    ['an instruction with a numeric runId', instruction({ runId: 7 }), 'runId must be null or an id'],
    ['an instruction without runId', without(instruction(), 'runId'), 'runId must be null or an id'],
    ['an instruction without fromCommentId', without(instruction(), 'fromCommentId'), 'fromCommentId must be null or an id'],
  ];

  it.each(bad)('refuses %s', (_name, value, reason) => {
    expect(parseAnnotation(value)).toEqual({ ok: false, reason });
  });
});

describe('readAnnotations', () => {
  it('returns valid records oldest first and reports invalid ones without failing', () => {
    const ydoc = new Y.Doc();
    const annotations = notesParts(ydoc).annotations;
    annotations.set('a2', comment({ id: 'a2', createdAt: 20 }));
    annotations.set('a1', instruction({ id: 'a1', createdAt: 10 }));
    annotations.set('bad', comment({ id: 'bad', turns: [] }));
    annotations.set('x9', comment({ id: 'other' }));
    annotations.set('n', 42);
    const { annotations: read, invalid } = readAnnotations(ydoc);
    expect(read.map((a) => [a.id, a.kind])).toEqual([
      ['a1', 'instruction'],
      ['a2', 'comment'],
    ]);
    expect(invalid).toEqual([
      { id: 'bad', reason: 'turns must be a non-empty array' },
      { id: 'n', reason: 'the record is not an object' },
      { id: 'x9', reason: 'id does not match its key' },
    ]);
  });

  it('reads one record by id, or says why it cannot', () => {
    const ydoc = new Y.Doc();
    notesParts(ydoc).annotations.set('a1', comment());
    expect(readAnnotation(ydoc, 'a1')).toEqual({ ok: true, annotation: comment() });
    expect(readAnnotation(ydoc, 'zz')).toEqual({ ok: false, reason: 'no annotation has this id' });
  });
});
