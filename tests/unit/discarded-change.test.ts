import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { parseAnnotation, readAnnotation, type Author } from '../../shared/notes/annotations.ts';
import { createAnnotation, setAnchor, type NewAnnotation } from '../../shared/notes/annotations-writers.ts';
import { notesParts } from '../../shared/model/doc-layout.ts';
import { checkNotesChange, snapshotNotes } from '../../shared/notes/notes-rules.ts';
import { serverOrigin } from '../../shared/model/origins.ts';
import { sampleAnchor } from '../helpers/notes.ts';

/*
 * `discardedChange`: the field Discard run with a reason writes on the draft instruction it
 * makes (shared/PROTOCOL.md REV5, NOTES2, NOTES3, NOTES6).
 */

const anchor = sampleAnchor;
const ed: Author = { id: 'ed', name: 'Ed' };
const editor = { id: 'ed', name: 'Ed', role: 'editor' as const };
const clock = { now: 1_000_000, earliest: 0 };

function draft(overrides: Partial<NewAnnotation> = {}): NewAnnotation {
  return { kind: 'instruction', anchor, blockId: 'b1', quote: 'brave', author: ed, text: 'Keep it short', now: 1000, state: 'draft', ...overrides };
}

function withServerDraft(): Y.Doc {
  const ydoc = new Y.Doc();
  const made = createAnnotation(ydoc, draft({ id: 'i-reason', discardedChange: 'A brave new text' }), serverOrigin);
  if (!made.ok) throw new Error(made.error.message);
  return ydoc;
}

describe('an instruction that records a discarded change', () => {
  it('is written and read back with the change', () => {
    const found = readAnnotation(withServerDraft(), 'i-reason');
    expect(found.ok && found.annotation).toMatchObject({ kind: 'instruction', state: 'draft', discardedChange: 'A brave new text' });
  });

  it('reads without the field when none was written', () => {
    const ydoc = new Y.Doc();
    createAnnotation(ydoc, draft({ id: 'i-plain' }));
    const found = readAnnotation(ydoc, 'i-plain');
    expect(found.ok && 'discardedChange' in found.annotation).toBe(false);
  });

  it('refuses a discarded change that is not a string', () => {
    const record = (notesParts(withServerDraft()).annotations.get('i-reason') as Y.Map<unknown>).toJSON();
    expect(parseAnnotation({ ...record, discardedChange: 7 })).toMatchObject({ ok: false });
  });

  it('[NOTES2] passes the record check as the server wrote it', () => {
    const ydoc = new Y.Doc();
    const before = snapshotNotes(ydoc);
    createAnnotation(ydoc, draft({ id: 'i-reason', discardedChange: '' }));
    // NOTES6 is what stops a person here; the record itself is well formed.
    expect(snapshotNotes(ydoc).get('i-reason')?.parsed.ok).toBe(true);
    expect(checkNotesChange(before, snapshotNotes(ydoc), editor, clock)?.rule).toBe('NOTES6');
  });

  it('[NOTES6] refuses a person who creates an instruction recording a discarded change', () => {
    const ydoc = new Y.Doc();
    const before = snapshotNotes(ydoc);
    createAnnotation(ydoc, draft({ id: 'i-forged', discardedChange: 'anything' }));
    expect(checkNotesChange(before, snapshotNotes(ydoc), editor, clock)).toMatchObject({ rule: 'NOTES6', annotationId: 'i-forged' });
  });

  it('[NOTES3] refuses a change or removal of the discarded change, and allows re-pinning', () => {
    for (const change of [
      (record: Y.Map<unknown>) => record.set('discardedChange', 'something else'),
      (record: Y.Map<unknown>) => record.delete('discardedChange'),
    ]) {
      const ydoc = withServerDraft();
      const before = snapshotNotes(ydoc);
      change(notesParts(ydoc).annotations.get('i-reason') as Y.Map<unknown>);
      expect(checkNotesChange(before, snapshotNotes(ydoc), editor, clock)?.rule).toBe('NOTES3');
    }
    const ydoc = withServerDraft();
    const before = snapshotNotes(ydoc);
    setAnchor(ydoc, 'i-reason', { anchor, blockId: 'b2' });
    expect(checkNotesChange(before, snapshotNotes(ydoc), editor, clock)).toBeNull();
  });
});
