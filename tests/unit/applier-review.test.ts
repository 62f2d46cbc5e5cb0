import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import type { Node } from 'prosemirror-model';
import { applyOps } from '../../shared/applier/applier.ts';
import { clearChangeMarks } from '../../shared/applier/applier-marks.ts';
import { blockHash, readProseMirrorDoc } from '../../shared/model/doc-content.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { blockToMarkdown, withoutChangeMarks } from '../../shared/model/markdown.ts';
import type { Op } from '../../shared/applier/ops.ts';
import { runOrigin, serverOrigin } from '../../shared/model/origins.ts';
import { keepRunDeletions, restoreRunScope, runUndoManager, saveRunScope, undoRun } from '../../shared/applier/run-scope.ts';
import { makeYDoc } from '../helpers/doc-builder.ts';
import { bytes, markdown, markdowns, replaceOp, setup, readTopBlocks } from '../helpers/applier-fixture.ts';

/*
 * What the review of a run relies on: the change marks the applier writes (applier-marks.ts,
 * applier-write.ts) and the run's undo scope (run-scope.ts): Accept clears the marks, Discard
 * undoes the run, also after a restart.
 */

/** The text nodes of a document, with the instruction of their change mark, if any. */
function changeRuns(doc: Node): [string, string | null][] {
  const runs: [string, string | null][] = [];
  doc.descendants((node) => {
    if (!node.isText) return true;
    const mark = node.marks.find((m) => m.type.name === 'change');
    runs.push([node.text ?? '', mark ? `${mark.attrs.runId}/${mark.attrs.instructionId}` : null]);
    return false;
  });
  return runs;
}

describe('change marks', () => {
  it('[OP4] mark new blocks whole and, in a replaced block, only the characters written anew', () => {
    const { ydoc, blocks, run, origin } = setup();
    const ops: Op[] = [
      replaceOp(blocks[2], 'Second **new** paragraph here', 'i2'),
      { op: 'insert_after', blockId: blocks[2].id, markdown: 'Fresh *text*', instructionId: 'i1' },
      replaceOp(blocks[3], '- one\n- two\n- three', 'i1'),
    ];
    expect(applyOps(ydoc, ops, run, origin).ok).toBe(true);
    const doc = readProseMirrorDoc(ydoc);
    expect(changeRuns(doc.child(2))).toEqual([
      ['Second ', null],
      ['new', 'run1/i2'],
      [' ', 'run1/i2'],
      ['paragraph here', null],
    ]);
    expect(changeRuns(doc.child(3))).toEqual([
      ['Fresh ', 'run1/i1'],
      ['text', 'run1/i1'],
    ]);
    expect(changeRuns(doc.child(4))).toEqual([
      ['one', null],
      ['two', null],
      ['three', 'run1/i1'],
    ]);
  });

  it('mark each replaced word on its own, not the kept text between them', () => {
    const { ydoc, blocks, run, origin } = setup();
    expect(applyOps(ydoc, [replaceOp(blocks[1], 'Alpha BETA gamma DELTA', 'i1')], run, origin).ok).toBe(true);
    expect(changeRuns(readProseMirrorDoc(ydoc).child(1))).toEqual([
      ['Alpha ', null],
      ['BETA', 'run1/i1'],
      [' gamma ', null],
      ['DELTA', 'run1/i1'],
    ]);
  });

  it('mark new code inside a code block', () => {
    const { ydoc, blocks, run, origin } = setup('```js\nlet a = 1;\n```\n\nEnd');
    expect(applyOps(ydoc, [replaceOp(blocks[0], '```js\nlet a = 2;\n```')], run, origin).ok).toBe(true);
    expect(changeRuns(readProseMirrorDoc(ydoc).child(0))).toEqual([
      ['let a = ', null],
      ['2', 'run1/i1'],
      [';', null],
    ]);
  });

  it('are invisible to Markdown and hashes', () => {
    const { ydoc, blocks, run, origin } = setup();
    expect(applyOps(ydoc, [replaceOp(blocks[1], 'Alpha *beta* gamma, then delta')], run, origin).ok).toBe(true);
    const block = readProseMirrorDoc(ydoc).child(1);
    expect(withoutChangeMarks(block)).not.toBe(block);
    expect(blockToMarkdown(block)).toBe('Alpha *beta* gamma, then delta');
    expect(blockHash(block)).toBe(blockHash(withoutChangeMarks(block)));
    const plain = readProseMirrorDoc(makeYDoc('No *marks* here'));
    expect(withoutChangeMarks(plain)).toBe(plain);
  });

  it('of an earlier batch stay on the text a later batch keeps', () => {
    const { ydoc, blocks, run, origin } = setup();
    expect(applyOps(ydoc, [replaceOp(blocks[1], 'Alpha beta gamma delta epsilon', 'i1')], run, origin).ok).toBe(true);
    const read = readTopBlocks(ydoc)[1];
    expect(applyOps(ydoc, [replaceOp(read, 'Zero alpha beta gamma delta epsilon', 'i2')], run, origin).ok).toBe(true);
    expect(changeRuns(readProseMirrorDoc(ydoc).child(1))).toEqual([
      // y-prosemirror's diff: one common prefix (none: "A" became "Z") and one common suffix.
      ['Zero a', 'run1/i2'],
      ['lpha beta gamma delta', null],
      [' epsilon', 'run1/i1'],
    ]);
  });

  it('[OP4] are cleared for one run on Accept, as one transaction that changes no text', () => {
    const { ydoc, blocks, run, origin } = setup();
    expect(applyOps(ydoc, [replaceOp(blocks[1], 'Alpha beta gamma delta, first')], run, origin).ok).toBe(true);
    const other = { ...run, runId: 'run2' };
    expect(applyOps(ydoc, [replaceOp(readTopBlocks(ydoc)[2], 'Second paragraph here, second')], other, runOrigin('run2')).ok).toBe(true);
    const text = markdowns(ydoc);
    const origins: unknown[] = [];
    ydoc.on('afterTransaction', (tr: Y.Transaction) => origins.push(tr.origin));
    expect(clearChangeMarks(ydoc, 'run1', serverOrigin)).toBe(true);
    expect(origins).toEqual([serverOrigin]);
    const doc = readProseMirrorDoc(ydoc);
    expect(changeRuns(doc.child(1))).toEqual([['Alpha beta gamma delta, first', null]]);
    expect(changeRuns(doc.child(2))).toEqual([
      ['Second paragraph here', null],
      [', second', 'run2/i1'],
    ]);
    expect(markdowns(ydoc)).toEqual(text);
    const before = bytes(ydoc);
    expect(clearChangeMarks(ydoc, 'run1', serverOrigin)).toBe(false);
    expect(bytes(ydoc)).toEqual(before);
  });
});

describe('the run scope (shared/applier/run-scope.ts)', () => {
  it('[REV2] Discard undoes the run and keeps what a person typed meanwhile', () => {
    const { ydoc, blocks, run, origin } = setup();
    const um = runUndoManager(ydoc, origin);
    um.stopCapturing();
    const ops: Op[] = [
      replaceOp(blocks[1], 'Alpha BETA gamma'),
      { op: 'insert_after', blockId: blocks[1].id, markdown: 'Inserted', instructionId: 'i1' },
      { op: 'delete_block', blockId: blocks[3].id, expectHash: blocks[3].hash, instructionId: 'i2' },
    ];
    expect(applyOps(ydoc, ops, run, origin).ok).toBe(true);
    um.stopCapturing();
    const ytext = (docParts(ydoc).content.get(0) as Y.XmlElement).get(0) as Y.XmlText;
    ydoc.transact(() => ytext.insert(5, ' typed'));
    expect(undoRun(um)).toBe(true);
    expect(markdowns(ydoc)).toEqual(['# Title typed', 'Alpha beta gamma delta', 'Second paragraph here', '* one\n* two', 'Outside the fence']);
    expect(readTopBlocks(ydoc).map((b) => b.id)).toEqual(blocks.map((b) => b.id));
  });

  it('Discard keeps what a person typed between the words the run wrote', () => {
    const { ydoc, blocks, run, origin } = setup();
    const um = runUndoManager(ydoc, origin);
    um.stopCapturing();
    expect(applyOps(ydoc, [replaceOp(blocks[1], 'Alpha beta NEW WORDS gamma delta')], run, origin).ok).toBe(true);
    um.stopCapturing();
    const person = new Y.Doc();
    Y.applyUpdate(person, Y.encodeStateAsUpdate(ydoc));
    const ytext = (docParts(person).content.get(1) as Y.XmlElement).get(0) as Y.XmlText;
    person.transact(() => ytext.insert('Alpha beta NEW'.length, ' typed'));
    Y.applyUpdate(ydoc, Y.encodeStateAsUpdate(person, Y.encodeStateVector(ydoc)));
    expect(markdowns(ydoc)[1]).toBe('Alpha beta NEW typed WORDS gamma delta');
    const before = Y.encodeStateVector(ydoc);
    expect(undoRun(um)).toBe(true);
    Y.applyUpdate(person, Y.encodeStateAsUpdate(ydoc, before));
    // The run wrote "NEW WORDS " between "beta " and "gamma"; " typed" stays where it was put.
    expect(markdowns(ydoc)[1]).toBe('Alpha beta  typedgamma delta');
    expect(markdowns(person)).toEqual(markdowns(ydoc));
    expect(changeRuns(readProseMirrorDoc(ydoc).child(1))).toEqual([['Alpha beta  typedgamma delta', null]]);
  });

  it('survives a restart: the scope is saved as bytes and undone on a freshly loaded document', () => {
    const { ydoc, blocks, run, origin } = setup();
    const um = runUndoManager(ydoc, origin);
    um.stopCapturing();
    expect(applyOps(ydoc, [replaceOp(blocks[1], 'Alpha omega')], run, origin).ok).toBe(true);
    expect(applyOps(ydoc, [{ op: 'delete_block', blockId: blocks[2].id, expectHash: blocks[2].hash, instructionId: 'i1' }], run, origin).ok).toBe(true);
    um.stopCapturing();
    const saved = saveRunScope(um);
    const stored = Y.encodeStateAsUpdate(ydoc);
    um.destroy();

    const loaded = new Y.Doc({ gc: false });
    Y.applyUpdate(loaded, stored);
    const restoredOrigin = runOrigin('run1');
    const restored = restoreRunScope(loaded, restoredOrigin, {
      insertions: new Uint8Array(saved.insertions),
      deletions: new Uint8Array(saved.deletions),
    });
    expect(markdowns(loaded)[1]).toBe('Alpha omega');
    expect(undoRun(restored)).toBe(true);
    expect(markdowns(loaded)).toEqual(markdowns(makeYDoc(markdown)));
    expect(readTopBlocks(loaded).map((b) => b.id)).toEqual(blocks.map((b) => b.id));
  });

  it('survives a restart into a collecting document whose gcFilter keeps the open runs\' deletions', () => {
    const { ydoc, blocks, run, origin } = setup();
    const um = runUndoManager(ydoc, origin);
    expect(applyOps(ydoc, [replaceOp(blocks[1], 'Alpha omega'), replaceOp(blocks[0], '## Renamed')], run, origin).ok).toBe(true);
    um.stopCapturing();
    const saved = saveRunScope(um);
    const stored = Y.encodeStateAsUpdate(ydoc);

    const kept = new Y.Doc({ gcFilter: keepRunDeletions([saved]) });
    Y.applyUpdate(kept, stored);
    expect(undoRun(restoreRunScope(kept, runOrigin('run1'), saved))).toBe(true);
    expect(markdowns(kept)).toEqual(markdowns(makeYDoc(markdown)));

    // Without it the deleted text is collected on load: the undo can only remove the new text.
    const collected = new Y.Doc();
    Y.applyUpdate(collected, stored);
    undoRun(restoreRunScope(collected, runOrigin('run1'), saved));
    expect(markdowns(collected)[1]).not.toBe('Alpha beta gamma delta');
  });

  it('takes back several stack items as one transaction', () => {
    const { ydoc, blocks, run, origin } = setup();
    const um = runUndoManager(ydoc, origin);
    expect(applyOps(ydoc, [replaceOp(blocks[1], 'One')], run, origin).ok).toBe(true);
    um.stopCapturing();
    expect(applyOps(ydoc, [replaceOp(blocks[2], 'Two')], run, origin).ok).toBe(true);
    expect(um.undoStack).toHaveLength(2);
    let transactions = 0;
    ydoc.on('afterTransaction', () => transactions++);
    expect(undoRun(um)).toBe(true);
    expect(transactions).toBe(1);
    expect(markdowns(ydoc)).toEqual(markdowns(makeYDoc(markdown)));
    expect(undoRun(um)).toBe(false);
  });
});
