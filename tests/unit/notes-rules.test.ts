import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import {
  addTurn,
  createAnnotation,
  deleteAnnotation,
  editInstructionText,
  setAnchor,
  setInstructionState,
  setResolved,
  type NewAnnotation,
} from '../../shared/notes/annotations-writers.ts';
import type { Author } from '../../shared/notes/annotations.ts';
import type { Role } from '../../shared/protocol/claims.ts';
import { notesParts } from '../../shared/model/doc-layout.ts';
import { checkNotesChange, heldInstructions, maxClockSkewMs, snapshotNotes, type NotesRule } from '../../shared/notes/notes-rules.ts';
import { serverOrigin } from '../../shared/model/origins.ts';
import { sampleAnchor } from '../helpers/notes.ts';

const anchor = sampleAnchor;
const otherAnchor = {
  from: { type: { client: 1, clock: 1 }, item: { client: 1, clock: 20 }, assoc: 0 },
  to: { type: { client: 1, clock: 1 }, item: { client: 1, clock: 24 }, assoc: -1 },
};
const ed: Author = { id: 'ed', name: 'Ed' };
const cora: Author = { id: 'cora', name: 'Cora' };
const carl: Author = { id: 'carl', name: 'Carl' };
const roles: Record<string, Role> = { ed: 'editor', cora: 'commenter', carl: 'commenter' };
/** The server's time for these tests: every fixture time lies well inside NOTES10's window. */
const clock = { now: 1_000_000, earliest: 0 };

function add(ydoc: Y.Doc, author: Author, overrides: Partial<NewAnnotation> = {}): string {
  const result = createAnnotation(ydoc, { kind: 'comment', anchor, blockId: 'b1', quote: 'brave', author, text: 'note', now: 1000, ...overrides });
  if (!result.ok) throw new Error(result.error.message);
  return result.id;
}

/** A notes Y.Doc holding c-ed, c-cora (comments) and i-queued, i-sent (instructions by Ed). */
function fixture(): Y.Doc {
  const ydoc = new Y.Doc();
  add(ydoc, ed, { id: 'c-ed' });
  add(ydoc, cora, { id: 'c-cora' });
  add(ydoc, ed, { id: 'i-queued', kind: 'instruction', text: 'uppercase' });
  add(ydoc, ed, { id: 'i-sent', kind: 'instruction', text: 'delete' });
  setInstructionState(ydoc, 'i-sent', 'sent', 'r1', serverOrigin);
  return ydoc;
}

/** The rule `who` breaks by `change` on the fixture, or null. */
function verdict(who: Author, change: (ydoc: Y.Doc) => void): NotesRule | null {
  const ydoc = fixture();
  const before = snapshotNotes(ydoc);
  change(ydoc);
  return checkNotesChange(before, snapshotNotes(ydoc), { ...who, role: roles[who.id] }, clock)?.rule ?? null;
}

const annotations = (ydoc: Y.Doc) => notesParts(ydoc).annotations;
const record = (ydoc: Y.Doc, id: string) => annotations(ydoc).get(id) as Y.Map<unknown>;

describe('checkNotesChange', () => {
  it('[NOTES1] refuses every change by a viewer or an agent', () => {
    for (const role of ['viewer', 'agent'] as const) {
      const ydoc = fixture();
      const before = snapshotNotes(ydoc);
      add(ydoc, { id: 'v', name: 'V' });
      expect(checkNotesChange(before, snapshotNotes(ydoc), { id: 'v', name: 'V', role }, clock)?.rule).toBe('NOTES1');
    }
  });

  it('accepts no change at all, and a replica’s copy of the same records', () => {
    const ydoc = fixture();
    const copy = new Y.Doc();
    Y.applyUpdate(copy, Y.encodeStateAsUpdate(ydoc));
    expect(checkNotesChange(snapshotNotes(ydoc), snapshotNotes(copy), { ...cora, role: 'commenter' }, clock)).toBeNull();
  });

  describe('[NOTES2] records are valid', () => {
    it.each<[string, (ydoc: Y.Doc) => void]>([
      ['a record that does not parse', (ydoc) => annotations(ydoc).set('x', { by: 'ed' })],
      ['a record stored under another id', (ydoc) => annotations(ydoc).set('y', record(ydoc, 'c-ed').clone())],
      ['a valid record as plain JSON rather than a Y.Map', (ydoc) => annotations(ydoc).set('x', record(fixture(), 'c-ed').toJSON())],
      ['a field the format does not know', (ydoc) => record(ydoc, 'c-ed').set('colour', 'red')],
      ['a required field removed', (ydoc) => record(ydoc, 'c-ed').delete('resolved')],
      ['turns that are not a Y.Array', (ydoc) => record(ydoc, 'c-ed').set('turns', [{ author: ed, text: 'x', at: 1 }])],
      [
        'a quote stored as a Y.Text that hides data in its formatting',
        (ydoc) => {
          const quote = new Y.Text('brave');
          record(ydoc, 'c-ed').set('quote', quote);
          quote.format(0, 5, { hidden: 'x'.repeat(1000) });
        },
      ],
      [
        'a turn’s text stored as a Y.Text',
        (ydoc) => ((record(ydoc, 'c-ed').get('turns') as Y.Array<Y.Map<unknown>>).get(0).set('text', new Y.Text('note'))),
      ],
    ])('refuses %s, even from an editor', (_label, change) => {
      expect(verdict(ed, change)).toBe('NOTES2');
    });

    it('lets an editor delete a malformed record, not a commenter', () => {
      const ydoc = fixture();
      annotations(ydoc).set('junk', { by: 'someone' });
      const before = snapshotNotes(ydoc);
      annotations(ydoc).delete('junk');
      const after = snapshotNotes(ydoc);
      expect(checkNotesChange(before, after, { ...ed, role: 'editor' }, clock)).toBeNull();
      expect(checkNotesChange(before, after, { ...cora, role: 'commenter' }, clock)?.rule).toBe('NOTES8');
    });
  });

  it.each<[string, (ydoc: Y.Doc) => void]>([
    ['the quote', (ydoc) => record(ydoc, 'c-ed').set('quote', 'other')],
    ['the author', (ydoc) => record(ydoc, 'c-ed').set('author', cora)],
    [
      'the kind',
      (ydoc) => {
        const comment = record(ydoc, 'c-ed');
        ydoc.transact(() => {
          comment.set('kind', 'instruction');
          comment.set('state', 'queued');
          comment.set('runId', null);
          comment.set('fromCommentId', null);
        });
      },
    ],
    ['the time', (ydoc) => record(ydoc, 'c-ed').set('createdAt', 5)],
    ['the comment an instruction came from', (ydoc) => record(ydoc, 'i-queued').set('fromCommentId', 'c-ed')],
  ])('[NOTES3] refuses a change of %s', (_label, change) => {
    expect(verdict(ed, change)).toBe('NOTES3');
  });

  it.each<[string, Author, (ydoc: Y.Doc) => void]>([
    ['an editor adds a comment in another’s name', ed, (ydoc) => add(ydoc, cora)],
    ['a commenter adds a comment in another’s name', cora, (ydoc) => add(ydoc, carl)],
    ['a commenter replies in another’s name', cora, (ydoc) => addTurn(ydoc, 'c-ed', { author: ed, text: 'yes', now: 2 })],
  ])('[NOTES4] refuses when %s', (_label, who, change) => {
    expect(verdict(who, change)).toBe('NOTES4');
  });

  describe('[NOTES5] turns', () => {
    it('refuses removing a reply, or changing its author or time', () => {
      const withReply = (ydoc: Y.Doc) => addTurn(ydoc, 'c-ed', { author: cora, text: 'reply', now: 2 });
      const turns = (ydoc: Y.Doc) => record(ydoc, 'c-ed').get('turns') as Y.Array<Y.Map<unknown>>;
      for (const change of [
        (ydoc: Y.Doc) => turns(ydoc).delete(1, 1),
        (ydoc: Y.Doc) => turns(ydoc).get(1).set('at', 3),
        (ydoc: Y.Doc) => turns(ydoc).get(1).set('author', ed),
      ]) {
        const ydoc = fixture();
        withReply(ydoc);
        const before = snapshotNotes(ydoc);
        change(ydoc);
        expect(checkNotesChange(before, snapshotNotes(ydoc), { ...ed, role: 'editor' }, clock)?.rule).toBe('NOTES5');
      }
    });

    it('lets only the author edit a comment’s text', () => {
      const edit = (ydoc: Y.Doc) => ((record(ydoc, 'c-cora').get('turns') as Y.Array<Y.Map<unknown>>).get(0).set('text', 'changed'));
      expect(verdict(cora, edit)).toBeNull();
      expect(verdict(ed, edit)).toBe('NOTES5');
      expect(verdict(carl, edit)).toBe('NOTES5');
    });

    it('lets editors edit an instruction’s work order, also once it is sent (the run keeps its copy)', () => {
      expect(verdict(ed, (ydoc) => editInstructionText(ydoc, 'i-queued', 'lowercase'))).toBeNull();
      const editSent = (ydoc: Y.Doc) => (record(ydoc, 'i-sent').get('turns') as Y.Array<Y.Map<unknown>>).get(0).set('text', 'x');
      expect(verdict(ed, editSent)).toBeNull();
      expect(verdict(cora, editSent)).toBe('NOTES7');
    });
  });

  describe('[NOTES6] instruction states', () => {
    it('lets an editor move an instruction between queued and draft', () => {
      expect(verdict(ed, (ydoc) => setInstructionState(ydoc, 'i-queued', 'draft', null))).toBeNull();
    });

    it.each<[string, (ydoc: Y.Doc) => void]>([
      ['mark it sent', (ydoc) => setInstructionState(ydoc, 'i-queued', 'sent', 'r9')],
      ['give it a run', (ydoc) => record(ydoc, 'i-queued').set('runId', 'r9')],
    ])('refuses an editor who tries to %s', (_label, change) => {
      expect(verdict(ed, change)).toBe('NOTES6');
    });

    it('refuses an editor who creates an instruction already sent', () => {
      const ydoc = fixture();
      const before = snapshotNotes(ydoc);
      ydoc.transact(() => {
        const id = add(ydoc, ed, { kind: 'instruction' });
        record(ydoc, id).set('state', 'sent');
        record(ydoc, id).set('runId', 'r9');
      });
      expect(checkNotesChange(before, snapshotNotes(ydoc), { ...ed, role: 'editor' }, clock)?.rule).toBe('NOTES6');
    });
  });

  describe('[NOTES13] instructions the server holds', () => {
    const held = { id: 'i-sent', state: 'sent', runId: 'r1' };
    it.each<[string, (ydoc: Y.Doc) => void]>([
      ['marks it answered', (ydoc) => setInstructionState(ydoc, 'i-sent', 'answered', 'r1')],
      ['puts it back in the queue', (ydoc) => setInstructionState(ydoc, 'i-sent', 'queued', null)],
      ['gives it another run', (ydoc) => record(ydoc, 'i-sent').set('runId', 'r9')],
      ['moves it to draft, keeping the run', (ydoc) => record(ydoc, 'i-sent').set('state', 'draft')],
    ])('lets an editor’s update through when it %s, and names the state the server must write back', (_label, change) => {
      const ydoc = fixture();
      const before = snapshotNotes(ydoc);
      change(ydoc);
      const after = snapshotNotes(ydoc);
      expect(checkNotesChange(before, after, { ...ed, role: 'editor' }, clock)).toBeNull();
      expect(heldInstructions(before, after)).toEqual([held]);
      expect(checkNotesChange(before, after, { ...cora, role: 'commenter' }, clock)?.rule).toBe('NOTES6');
    });

    it('holds nothing for open instructions, comments or records left as they were', () => {
      const ydoc = fixture();
      const before = snapshotNotes(ydoc);
      setInstructionState(ydoc, 'i-queued', 'draft', null);
      setResolved(ydoc, 'c-ed', true);
      addTurn(ydoc, 'i-sent', { author: ed, text: 'and the title', now: 2000 });
      expect(heldInstructions(before, snapshotNotes(ydoc))).toEqual([]);
    });
  });

  describe('[NOTES9] names', () => {
    it.each<[string, Author, (ydoc: Y.Doc) => void]>([
      ['an editor adds a comment under another name', ed, (ydoc) => add(ydoc, { id: 'ed', name: 'Cora' })],
      ['a commenter adds a comment under another name', cora, (ydoc) => add(ydoc, { id: 'cora', name: 'The Owner' })],
      ['a commenter replies under another name', cora, (ydoc) => addTurn(ydoc, 'c-ed', { author: { id: 'cora', name: 'Ed' }, text: 'yes', now: 2 })],
    ])('refuses when %s', (_label, who, change) => {
      expect(verdict(who, change)).toBe('NOTES9');
    });

    it('leaves alone the names of records already there', () => {
      const ydoc = fixture();
      const before = snapshotNotes(ydoc);
      setResolved(ydoc, 'c-cora', true);
      expect(checkNotesChange(before, snapshotNotes(ydoc), { id: 'ed', name: 'Edward', role: 'editor' }, clock)).toBeNull();
    });
  });

  describe('[NOTES10] times', () => {
    const skewed = (now: number) => (ydoc: Y.Doc) => add(ydoc, ed, { now });
    const reply = (now: number) => (ydoc: Y.Doc) => addTurn(ydoc, 'c-cora', { author: ed, text: 'later', now });
    it('refuses a record or a reply dated beyond the allowed skew into the future', () => {
      expect(verdict(ed, skewed(clock.now + maxClockSkewMs + 1))).toBe('NOTES10');
      expect(verdict(ed, reply(clock.now + maxClockSkewMs + 1))).toBe('NOTES10');
      expect(verdict(ed, skewed(clock.now + maxClockSkewMs))).toBeNull();
    });

    it('accepts a record or a reply written offline long ago, but not before the earliest time', () => {
      const ydoc = fixture();
      const before = snapshotNotes(ydoc);
      add(ydoc, ed, { now: 5000 });
      addTurn(ydoc, 'c-cora', { author: ed, text: 'written on a plane', now: 5000 });
      const after = snapshotNotes(ydoc);
      const writer = { ...ed, role: 'editor' as const };
      expect(checkNotesChange(before, after, writer, { now: 5000 + 3 * 3600_000, earliest: 5000 })).toBeNull();
      expect(checkNotesChange(before, after, writer, { now: 5000 + 3 * 3600_000, earliest: 5001 })?.rule).toBe('NOTES10');
    });
  });

  describe('[NOTES7] commenters and instructions', () => {
    it.each<[string, (ydoc: Y.Doc) => void]>([
      ['create an instruction', (ydoc) => add(ydoc, cora, { kind: 'instruction' })],
      ['edit a work order', (ydoc) => editInstructionText(ydoc, 'i-queued', 'delete')],
      ['move an instruction to draft', (ydoc) => setInstructionState(ydoc, 'i-queued', 'draft', null)],
      ['re-pin an instruction', (ydoc) => setAnchor(ydoc, 'i-queued', { anchor: otherAnchor, blockId: 'b2' })],
      ['delete an instruction', (ydoc) => deleteAnnotation(ydoc, 'i-queued')],
    ])('refuses a commenter who tries to %s', (_label, change) => {
      expect(verdict(cora, change)).toBe('NOTES7');
    });

    it('lets a commenter reply to an instruction', () => {
      expect(verdict(cora, (ydoc) => addTurn(ydoc, 'i-sent', { author: cora, text: 'Why?', now: 5 }))).toBeNull();
    });
  });

  describe('[NOTES8] commenters and comments', () => {
    it('lets a commenter comment, reply, re-pin and delete their own comment', () => {
      expect(verdict(cora, (ydoc) => add(ydoc, cora))).toBeNull();
      expect(verdict(cora, (ydoc) => addTurn(ydoc, 'c-ed', { author: cora, text: 'agreed', now: 5 }))).toBeNull();
      expect(verdict(cora, (ydoc) => setAnchor(ydoc, 'c-cora', { anchor: otherAnchor, blockId: 'b2' }))).toBeNull();
      expect(verdict(cora, (ydoc) => deleteAnnotation(ydoc, 'c-cora'))).toBeNull();
    });

    it.each<[string, (ydoc: Y.Doc) => void]>([
      ['resolve a comment', (ydoc) => setResolved(ydoc, 'c-cora', true)],
      ['add a comment already resolved', (ydoc) => record(ydoc, add(ydoc, cora)).set('resolved', true)],
      ['re-pin another’s comment', (ydoc) => setAnchor(ydoc, 'c-ed', { anchor: otherAnchor, blockId: 'b2' })],
      ['delete another’s comment', (ydoc) => deleteAnnotation(ydoc, 'c-ed')],
    ])('refuses a commenter who tries to %s', (_label, change) => {
      expect(verdict(cora, change)).toBe('NOTES8');
    });

    it('lets an editor resolve, re-pin and delete anyone’s comment', () => {
      expect(verdict(ed, (ydoc) => setResolved(ydoc, 'c-cora', true))).toBeNull();
      expect(verdict(ed, (ydoc) => setAnchor(ydoc, 'c-cora', { anchor: otherAnchor, blockId: 'b2' }))).toBeNull();
      expect(verdict(ed, (ydoc) => deleteAnnotation(ydoc, 'c-cora'))).toBeNull();
    });
  });

  it('names the first offending record in id order, whatever the order of the changes', () => {
    const ydoc = fixture();
    const before = snapshotNotes(ydoc);
    deleteAnnotation(ydoc, 'i-sent');
    setResolved(ydoc, 'c-ed', true);
    expect(checkNotesChange(before, snapshotNotes(ydoc), { ...cora, role: 'commenter' }, clock)).toEqual({
      rule: 'NOTES8',
      annotationId: 'c-ed',
      message: expect.any(String),
    });
  });
});

/** Writer calls a principal of each role may make; the rules must accept every one of them. */
type Action = { kind: string; pick: number; text: string };

function allowedAction(ydoc: Y.Doc, who: Author, role: Role, action: Action, now: number): void {
  const ids = [...annotations(ydoc).keys()].sort();
  const target = ids.length > 0 ? ids[action.pick % ids.length] : null;
  const read = target ? (record(ydoc, target).toJSON() as { author: Author; kind: string; state?: string }) : null;
  const own = read?.author.id === who.id;
  switch (action.kind) {
    case 'comment':
      add(ydoc, who, { text: action.text, now });
      return;
    case 'instruction':
      if (role === 'editor') add(ydoc, who, { kind: 'instruction', text: action.text, now, state: action.pick % 2 ? 'draft' : 'queued' });
      return;
    case 'reply':
      if (target) addTurn(ydoc, target, { author: who, text: action.text, now });
      return;
    case 'resolve':
      if (target && role === 'editor') setResolved(ydoc, target, action.pick % 2 === 0);
      return;
    case 'edit':
      if (target && role === 'editor') editInstructionText(ydoc, target, action.text);
      return;
    case 'toggle':
      if (target && role === 'editor' && (read?.state === 'draft' || read?.state === 'queued')) {
        setInstructionState(ydoc, target, read?.state === 'draft' ? 'queued' : 'draft', null);
      }
      return;
    case 'repin':
      if (target && (role === 'editor' || (own && read?.kind !== 'instruction'))) setAnchor(ydoc, target, { anchor: otherAnchor, blockId: 'b9' });
      return;
    case 'delete':
      if (target && (role === 'editor' || (own && read?.kind !== 'instruction'))) deleteAnnotation(ydoc, target);
      return;
  }
}

describe('checkNotesChange against the writers', () => {
  it('accepts every change the writers make on behalf of a principal allowed to make it', () => {
    const action = fc.record({
      kind: fc.constantFrom('comment', 'instruction', 'reply', 'resolve', 'edit', 'toggle', 'repin', 'delete'),
      pick: fc.nat(20),
      text: fc.string({ minLength: 1, maxLength: 8 }).filter((text) => text.trim() !== ''),
    });
    const step = fc.record({ who: fc.constantFrom(ed, cora, carl), action });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 25 }), (steps) => {
        const ydoc = fixture();
        steps.forEach(({ who, action: next }, index) => {
          const before = snapshotNotes(ydoc);
          allowedAction(ydoc, who, roles[who.id], next, 2000 + index);
          expect(checkNotesChange(before, snapshotNotes(ydoc), { ...who, role: roles[who.id] }, clock)).toBeNull();
        });
      }),
      { numRuns: 150 },
    );
  });
});
