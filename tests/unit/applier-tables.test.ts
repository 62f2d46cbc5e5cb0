import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { applyOps } from '../../shared/applier/applier.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { readBlocks } from '../../shared/model/doc-content.ts';
import { replaceOp, setup } from '../helpers/applier-fixture.ts';
import { acceptRunText } from '../../shared/applier/pending-delete.ts';
import { runUndoManager, undoRun } from '../../shared/applier/run-scope.ts';
import { readProseMirrorDoc } from '../../shared/model/doc-content.ts';
import { serverOrigin } from '../../shared/model/origins.ts';

/* The applier over tables (OP13): one block, written cell by cell. */

const table = '| a | b |\n| --- | --- |\n| 1 | 2 |';
const source = `Intro line\n\n${table}\n\nOutro line\n\nOutside the fence`;

/** The Y.XmlText of cell `cell` of row `row` of the table at top-level index 1. */
function cellText(ydoc: Y.Doc, row: number, cell: number): Y.XmlText {
  const ytable = docParts(ydoc).content.get(1) as Y.XmlElement;
  return ((ytable.get(row) as Y.XmlElement).get(cell) as Y.XmlElement).get(0) as Y.XmlText;
}

describe('applyOps on a table', () => {
  it('[OP13] lists a table as one block whose hash does not move while nothing changes', () => {
    const { ydoc } = setup(source);
    const blocks = readBlocks(ydoc);
    expect(blocks.map((block) => [block.type, block.parentId])).toEqual([['paragraph', null], ['table', null], ['paragraph', null], ['paragraph', null]]);
    expect(blocks[1].markdown).toBe(table);
    expect(readBlocks(ydoc)[1].hash).toBe(blocks[1].hash);
  });

  it('[OP13] replaces a table cell by cell: untouched cells keep their Yjs text, so typing there survives', () => {
    const { ydoc, blocks, run, origin } = setup(source);
    const kept = cellText(ydoc, 1, 0);
    const next = '| a | b |\n| --- | --- |\n| 1 | two |\n| 3 | 4 |';
    const result = applyOps(ydoc, [replaceOp(blocks[1], next)], run, origin);
    expect(result.ok).toBe(true);
    expect(cellText(ydoc, 1, 0)).toBe(kept);
    const after = readBlocks(ydoc);
    expect(after[1]).toMatchObject({ id: blocks[1].id, type: 'table', markdown: next });
    expect(after.map((block) => block.id)).toEqual(blocks.map((block) => block.id));
  });

  it('[OP13] removes a row of a table it replaces outright: rows are no blocks to mark as pending deletes', () => {
    const { ydoc, blocks, run, origin } = setup(`Intro line\n\n${table}\n| 3 | 4 |\n\nOutro line\n\nOutside the fence`);
    const result = applyOps(ydoc, [replaceOp(blocks[1], table)], run, origin);
    expect(result.ok).toBe(true);
    const ytable = docParts(ydoc).content.get(1) as Y.XmlElement;
    expect(ytable.length).toBe(2);
    expect(readBlocks(ydoc)[1].markdown).toBe(table);
  });

  it('[OP13] inserts a table after a block from its Markdown', () => {
    const { ydoc, blocks, run, origin } = setup(source);
    const result = applyOps(ydoc, [{ op: 'insert_after', blockId: blocks[0].id, markdown: '| x |\n| :-: |\n| y \\| z |', instructionId: 'i1' }], run, origin);
    expect(result.ok).toBe(true);
    expect(readBlocks(ydoc)[1]).toMatchObject({ id: 'new1', type: 'table', markdown: '| x |\n| :---: |\n| y \\| z |' });
  });

  it('[OP13] [REV2] marks the new cell text for review; Accept clears the marks, Discard keeps what a person typed in another cell', () => {
    const next = '| a | b |\n| --- | --- |\n| 1 | two |';
    const accepted = setup(source);
    expect(applyOps(accepted.ydoc, [replaceOp(accepted.blocks[1], next)], accepted.run, accepted.origin).ok).toBe(true);
    const changeMarks = (ydoc: Y.Doc) => {
      let count = 0;
      readProseMirrorDoc(ydoc).descendants((node) => {
        count += node.marks.filter((mark) => mark.type.name === 'change').length;
      });
      return count;
    };
    expect(changeMarks(accepted.ydoc)).toBeGreaterThan(0);
    acceptRunText(accepted.ydoc, 'run1', serverOrigin);
    expect(changeMarks(accepted.ydoc)).toBe(0);
    expect(readBlocks(accepted.ydoc)[1].markdown).toBe(next);

    const discarded = setup(source);
    const um = runUndoManager(discarded.ydoc, discarded.origin);
    um.stopCapturing();
    expect(applyOps(discarded.ydoc, [replaceOp(discarded.blocks[1], next)], discarded.run, discarded.origin).ok).toBe(true);
    um.stopCapturing();
    discarded.ydoc.transact(() => cellText(discarded.ydoc, 1, 0).insert(1, '0'));
    expect(undoRun(um)).toBe(true);
    expect(readBlocks(discarded.ydoc)[1].markdown).toBe('| a | b |\n| --- | --- |\n| 10 | 2 |');
  });
});
