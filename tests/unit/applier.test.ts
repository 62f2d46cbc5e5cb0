import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { applyOps, type ApplierRun, type ApplyResult } from '../../shared/applier/applier.ts';
import { anchorFromRange, resolveAnchor } from '../../shared/model/anchors.ts';
import { readProseMirrorDoc } from '../../shared/model/doc-content.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import type { Op } from '../../shared/applier/ops.ts';
import { runUndoManager } from '../../shared/applier/run-scope.ts';
import { serverOrigin } from '../../shared/model/origins.ts';
import { acceptRunText } from '../../shared/applier/pending-delete.ts';
import { bytes, markdowns, replaceOp, setup, readTopBlocks } from '../helpers/applier-fixture.ts';

/*
 * The applier (shared/applier/applier.ts): validation, precedence of refusals, all-or-nothing writes as
 * one transaction of the run, minimal diffs that keep anchors and concurrent typing. Change marks
 * and the undo scope: applier-review.test.ts; random batches: applier-properties.test.ts.
 */

function refusal(result: ApplyResult) {
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

describe('applyOps: a valid batch', () => {
  it('[OP3] replaces a block in place, keeping its id, and describes the change', () => {
    const { ydoc, blocks, run, origin } = setup();
    const result = applyOps(ydoc, [replaceOp(blocks[1], 'Alpha beta *gamma* delta!')], run, origin);
    if (!result.ok) throw new Error(result.error.message);
    const { parts, ...described } = result;
    expect([...parts.keys()]).toEqual(['i1']);
    expect(described).toEqual({
      ok: true,
      applied: 1,
      changes: [
        {
          blockId: blocks[1].id,
          instructionId: 'i1',
          op: 'replace_block',
          before: 'Alpha beta gamma delta',
          after: 'Alpha beta *gamma* delta!',
          blockIds: [blocks[1].id],
        },
      ],
    });
    expect(readTopBlocks(ydoc)[1]).toMatchObject({ id: blocks[1].id, type: 'paragraph', markdown: 'Alpha beta *gamma* delta!' });
  });

  it('inserts after a block with ids from makeId, several inserts after one block in batch order', () => {
    const { ydoc, blocks, run, origin, made } = setup();
    const ops: Op[] = [
      { op: 'insert_after', blockId: blocks[1].id, markdown: 'First', instructionId: 'i1' },
      { op: 'insert_after', blockId: blocks[1].id, markdown: 'Second\n\nThird', instructionId: 'i2' },
    ];
    const result = applyOps(ydoc, ops, run, origin);
    expect(result.ok && result.changes.map((c) => [c.op, c.before, c.after, c.blockIds])).toEqual([
      ['insert_after', null, 'First', ['new1']],
      ['insert_after', null, 'Second\n\nThird', ['new2', 'new3']],
    ]);
    expect(made).toEqual(['new1', 'new2', 'new3']);
    expect(readTopBlocks(ydoc).map((b) => b.id)).toEqual([blocks[0].id, blocks[1].id, 'new1', 'new2', 'new3', ...blocks.slice(2).map((b) => b.id)]);
  });

  it('replaces one block with several: the first keeps the id, inserts follow the last of them', () => {
    const { ydoc, blocks, run, origin } = setup();
    const ops: Op[] = [
      { op: 'insert_after', blockId: blocks[2].id, markdown: 'After', instructionId: 'i2' },
      replaceOp(blocks[2], 'Second paragraph here\n\n## A new heading'),
    ];
    const result = applyOps(ydoc, ops, run, origin);
    expect(result.ok && result.changes.map((c) => c.blockIds)).toEqual([['new1'], [blocks[2].id, 'new2']]);
    expect(readTopBlocks(ydoc).slice(2, 5).map((b) => [b.id, b.markdown])).toEqual([
      [blocks[2].id, 'Second paragraph here'],
      ['new2', '## A new heading'],
      ['new1', 'After'],
    ]);
  });

  it('keeps the id when a replacement changes the block type', () => {
    const { ydoc, blocks, run, origin } = setup();
    expect(applyOps(ydoc, [replaceOp(blocks[1], '## Alpha')], run, origin).ok).toBe(true);
    expect(readTopBlocks(ydoc)[1]).toMatchObject({ id: blocks[1].id, type: 'heading', markdown: '## Alpha' });
  });

  it('deletes a block and reports what it held', () => {
    const { ydoc, blocks, run, origin } = setup();
    const result = applyOps(ydoc, [{ op: 'delete_block', blockId: blocks[3].id, expectHash: blocks[3].hash, instructionId: 'i2' }], run, origin);
    expect(result.ok && result.changes).toEqual([
      { blockId: blocks[3].id, instructionId: 'i2', op: 'delete_block', before: '* one\n* two', after: null, blockIds: [] },
    ]);
    expect(readTopBlocks(ydoc).map((b) => b.id)).toEqual([blocks[0].id, blocks[1].id, blocks[2].id, blocks[4].id]);
  });

  it('[OP3] [ORIGIN1] writes the whole batch as one transaction whose origin is the run', () => {
    const { ydoc, blocks, run, origin } = setup();
    const origins: unknown[] = [];
    ydoc.on('afterTransaction', (tr: Y.Transaction) => origins.push(tr.origin));
    const ops: Op[] = [
      replaceOp(blocks[0], '# New title'),
      { op: 'insert_after', blockId: blocks[1].id, markdown: 'x', instructionId: 'i1' },
      { op: 'delete_block', blockId: blocks[2].id, expectHash: blocks[2].hash, instructionId: 'i2' },
    ];
    expect(applyOps(ydoc, ops, run, origin)).toMatchObject({ ok: true, applied: 3 });
    expect(origins).toEqual([origin]);
    expect(origins[0]).toBe(origin);
  });

  it('is pure: the same document, ops and ids give the same bytes and the same answer', () => {
    const { ydoc: base, blocks, run, origin } = setup();
    // Two replicas of one state that write as the same client (a client id the state lacks:
    // Yjs renames a client that sees its own id in a remote update).
    const [ydoc, twin] = [new Y.Doc(), new Y.Doc()];
    for (const replica of [ydoc, twin]) {
      replica.clientID = 4242;
      Y.applyUpdate(replica, Y.encodeStateAsUpdate(base));
    }
    const ops: Op[] = [replaceOp(blocks[1], 'Alpha beta\n\nMore'), { op: 'insert_after', blockId: blocks[3].id, markdown: '- three', instructionId: 'i2' }];
    let n = 0;
    const first = applyOps(ydoc, ops, run, origin);
    const second = applyOps(twin, ops, { ...run, makeId: () => `new${++n}` }, origin);
    expect(second).toEqual(first);
    expect(Y.encodeStateAsUpdate(twin)).toEqual(Y.encodeStateAsUpdate(ydoc));
  });

  it('accepts a replacement that changes nothing, and writes nothing for it', () => {
    const { ydoc, blocks, run, origin } = setup();
    const before = bytes(ydoc);
    const result = applyOps(ydoc, [replaceOp(blocks[1], blocks[1].markdown)], run, origin);
    expect(result.ok && result.changes[0]).toMatchObject({ before: blocks[1].markdown, after: blocks[1].markdown });
    expect(bytes(ydoc)).toEqual(before);
  });

  it('writes a change from one mark to another (y-prosemirror 1.3.7 would take it as no change, #197)', () => {
    const { ydoc, blocks, run, origin } = setup('a *b* c\n\n- *x*\n- y\n\nOutside the fence');
    const ops: Op[] = [replaceOp(blocks[0], 'a **b** c'), replaceOp(blocks[1], '- `x`\n- y')];
    expect(applyOps(ydoc, ops, run, origin).ok).toBe(true);
    expect(markdowns(ydoc)).toEqual(['a **b** c', '* `x`\n* y', 'Outside the fence']);
  });

  it('never projects the live document: content the schema cannot build stays where it is', () => {
    const { ydoc, blocks, run, origin } = setup();
    ydoc.transact(() => docParts(ydoc).content.insert(2, [new Y.XmlElement('widget_from_a_newer_client')]));
    expect(applyOps(ydoc, [replaceOp(blocks[2], 'Second paragraph, changed')], run, origin).ok).toBe(true);
    expect(docParts(ydoc).content.toArray().map((y) => (y as Y.XmlElement).nodeName)).toEqual([
      'heading',
      'paragraph',
      'widget_from_a_newer_client',
      'paragraph',
      'bullet_list',
      'paragraph',
    ]);
    expect(markdowns(ydoc)[2]).toBe('Second paragraph, changed');
  });

  it('reads only the blocks the batch names: unreadable content in other blocks is left untouched and stops nothing', () => {
    const { ydoc, blocks, run, origin } = setup();
    const yblocks = () => docParts(ydoc).content.toArray() as Y.XmlElement[];
    ydoc.transact(() => {
      // In a fenced block the batch does not name: an inline node and a mark from a newer client.
      const paragraph = yblocks()[1];
      paragraph.insert(1, [new Y.XmlElement('emoji_from_a_newer_client')]);
      (paragraph.get(0) as Y.XmlText).format(0, 5, { sparkle_from_a_newer_client: {} });
      docParts(ydoc).content.insert(4, [new Y.XmlElement('widget_from_a_newer_client')]);
    });
    const untouched = [yblocks()[1].toString(), yblocks()[4].toString()];
    const ops: Op[] = [
      replaceOp(blocks[2], 'Second paragraph, changed'),
      { op: 'insert_after', blockId: blocks[3].id, markdown: 'Inserted', instructionId: 'i1' },
    ];
    expect(applyOps(ydoc, ops, run, origin).ok).toBe(true);
    // The insert after blocks[3] moves the widget one place on.
    expect([yblocks()[1].toString(), yblocks()[5].toString()]).toEqual(untouched);
    expect(yblocks().map((y) => y.nodeName)).toEqual(['heading', 'paragraph', 'paragraph', 'bullet_list', 'paragraph', 'widget_from_a_newer_client', 'paragraph']);
    expect(readTopBlocks(ydoc).find((block) => block.id === blocks[2].id)?.markdown).toBe('Second paragraph, changed');
  });

  it('[STALE_BLOCK] refuses to replace or delete a block holding content the schema cannot build, and never deletes it', () => {
    const { ydoc, blocks, run, origin } = setup();
    const target = () => docParts(ydoc).content.get(1) as Y.XmlElement;
    ydoc.transact(() => target().insert(1, [new Y.XmlElement('emoji_from_a_newer_client')]));
    const before = bytes(ydoc);
    const kept = target().toString();
    for (const op of [replaceOp(blocks[1], 'Changed'), { op: 'delete_block', blockId: blocks[1].id, expectHash: blocks[1].hash, instructionId: 'i1' } as Op]) {
      const error = refusal(applyOps(ydoc, [replaceOp(blocks[2], 'Second, changed'), op], run, origin));
      expect(error).toMatchObject({ code: 'STALE_BLOCK', index: 1, blockId: blocks[1].id });
      expect(error.message).toContain('cannot build');
      expect(bytes(ydoc)).toEqual(before);
    }
    // An insert after it needs no reading of it: it is written, and the block stays as it was.
    const insert: Op = { op: 'insert_after', blockId: blocks[1].id, markdown: 'After it', instructionId: 'i1' };
    expect(applyOps(ydoc, [insert], run, origin).ok).toBe(true);
    expect(target().toString()).toBe(kept);
    expect((docParts(ydoc).content.get(2) as Y.XmlElement).toString()).toContain('After it');
  });

  it('throws a RangeError, writing nothing, when makeId repeats an id the document holds', () => {
    const { ydoc, blocks, run, origin } = setup();
    const before = bytes(ydoc);
    const ops: Op[] = [{ op: 'insert_after', blockId: blocks[1].id, markdown: 'x', instructionId: 'i1' }];
    expect(() => applyOps(ydoc, ops, { ...run, makeId: () => blocks[0].id }, origin)).toThrow(RangeError);
    expect(bytes(ydoc)).toEqual(before);
  });
});

describe('applyOps: refusals', () => {
  it('[OP_NOT_ALLOWED] refuses an op kind outside the allowlist', () => {
    const { ydoc, blocks, run, origin } = setup();
    const error = refusal(applyOps(ydoc, [replaceOp(blocks[1], 'x'), replaceOp(blocks[2], 'y')], { ...run, allowedOps: new Set(['insert_after']) }, origin));
    expect(error).toEqual({
      code: 'OP_NOT_ALLOWED',
      index: 0,
      blockId: blocks[1].id,
      message: 'The op at index 0 is a replace_block, which this agent may not send.',
    });
  });

  it('[INVALID_OP] refuses an op that answers no instruction of the run', () => {
    const { ydoc, blocks, run, origin } = setup();
    const error = refusal(applyOps(ydoc, [replaceOp(blocks[1], 'x'), replaceOp(blocks[2], 'y', 'other')], run, origin));
    expect(error).toMatchObject({ code: 'INVALID_OP', index: 1, blockId: blocks[2].id });
    expect(error.message).toBe('The op at index 1 answers "other", which is no instruction of this run.');
  });

  it('[OUTSIDE_FENCE] refuses a block no instruction targets, and an insert after one', () => {
    const { ydoc, blocks, run, origin } = setup();
    expect(refusal(applyOps(ydoc, [replaceOp(blocks[4], 'x')], run, origin))).toMatchObject({ code: 'OUTSIDE_FENCE', index: 0, blockId: blocks[4].id });
    const insert: Op = { op: 'insert_after', blockId: blocks[4].id, markdown: 'x', instructionId: 'i1' };
    const error = refusal(applyOps(ydoc, [replaceOp(blocks[1], 'y'), insert], run, origin));
    expect(error).toMatchObject({ code: 'OUTSIDE_FENCE', index: 1, blockId: blocks[4].id });
    expect(error.message).toBe(`The op at index 1 inserts after block "${blocks[4].id}", which no instruction of this run targets.`);
  });

  it('[STALE_BLOCK] refuses a fenced block that is gone, and one whose hash changed', () => {
    const { ydoc, blocks, run, origin } = setup();
    const ghost: Op = { op: 'insert_after', blockId: 'ghost', markdown: 'x', instructionId: 'i1' };
    expect(refusal(applyOps(ydoc, [ghost], { ...run, fence: new Set(['ghost']) }, origin))).toMatchObject({
      code: 'STALE_BLOCK',
      index: 0,
      blockId: 'ghost',
    });
    const stale = refusal(applyOps(ydoc, [replaceOp(blocks[1], 'x'), { ...replaceOp(blocks[2], 'y'), expectHash: blocks[1].hash }], run, origin));
    expect(stale).toMatchObject({ code: 'STALE_BLOCK', index: 1, blockId: blocks[2].id });
    expect(stale.message).toMatch(/^Block ".*" has changed since it was read/);
  });

  it('[STALE_BLOCK] sees an edit a person made after the agent read the block', () => {
    const { ydoc, blocks, run, origin } = setup();
    const ytext = (docParts(ydoc).content.get(1) as Y.XmlElement).get(0) as Y.XmlText;
    ydoc.transact(() => ytext.insert(0, 'Oh, '));
    const ops: Op[] = [{ op: 'delete_block', blockId: blocks[1].id, expectHash: blocks[1].hash, instructionId: 'i1' }];
    expect(refusal(applyOps(ydoc, ops, run, origin))).toMatchObject({ code: 'STALE_BLOCK', index: 0, blockId: blocks[1].id });
  });

  it('[INVALID_OP] refuses Markdown that holds no block', () => {
    const { ydoc, blocks, run, origin } = setup();
    for (const text of ['', '   \n\n  ', '[only]: https://example.com/a-link-definition']) {
      const error = refusal(applyOps(ydoc, [{ op: 'insert_after', blockId: blocks[1].id, markdown: text, instructionId: 'i1' }], run, origin));
      expect(error).toEqual({
        code: 'INVALID_OP',
        index: 0,
        blockId: blocks[1].id,
        message: 'The Markdown of the op at index 0 holds no block the document can keep.',
      });
    }
  });

  it('[INVALID_OP] refuses a second replace or delete of one block, and an insert after a deleted block', () => {
    const { ydoc, blocks, run, origin } = setup();
    const del: Op = { op: 'delete_block', blockId: blocks[1].id, expectHash: blocks[1].hash, instructionId: 'i1' };
    const insert: Op = { op: 'insert_after', blockId: blocks[1].id, markdown: 'x', instructionId: 'i1' };
    expect(refusal(applyOps(ydoc, [replaceOp(blocks[1], 'x'), del], run, origin))).toMatchObject({ code: 'INVALID_OP', index: 1 });
    expect(refusal(applyOps(ydoc, [replaceOp(blocks[1], 'x'), replaceOp(blocks[1], 'y')], run, origin)).message).toBe(
      `The op at index 1 changes block "${blocks[1].id}" again; the op at index 0 already replaces or deletes it.`,
    );
    expect(refusal(applyOps(ydoc, [del, insert], run, origin))).toMatchObject({ code: 'INVALID_OP', index: 1, blockId: blocks[1].id });
    expect(refusal(applyOps(ydoc, [insert, replaceOp(blocks[2], 'z'), del], run, origin))).toMatchObject({ code: 'INVALID_OP', index: 2 });
    expect(applyOps(ydoc, [insert, replaceOp(blocks[1], 'y'), insert], run, origin).ok).toBe(true);
  });

  it('[INVALID_OP] refuses a malformed batch as parseOps does', () => {
    const { ydoc, blocks, run, origin } = setup();
    expect(refusal(applyOps(ydoc, [], run, origin))).toMatchObject({ code: 'INVALID_OP', index: -1 });
    const bad = { op: 'insert_after', blockId: blocks[1].id, instructionId: 'i1' } as unknown as Op;
    expect(refusal(applyOps(ydoc, [replaceOp(blocks[1], 'x'), bad], run, origin))).toMatchObject({ code: 'INVALID_OP', index: 1 });
  });

  it('[OP2] checks op by op in batch order, and within an op: kind, instruction, fence, existence, hash, Markdown, repeats', () => {
    const { ydoc, blocks, run, origin } = setup();
    const onlyInserts = { ...run, allowedOps: new Set(['insert_after' as const]) };
    const code = (ops: Op[], r: ApplierRun = run) => {
      const error = refusal(applyOps(ydoc, ops, r, origin));
      return `${error.code}@${error.index}`;
    };
    // An op outside the fence, with a stale hash, answering no instruction, of a kind not allowed.
    const worst: Op = { op: 'replace_block', blockId: blocks[4].id, markdown: '', expectHash: 'stale', instructionId: 'none' };
    expect(code([worst], onlyInserts)).toBe('OP_NOT_ALLOWED@0');
    expect(code([worst])).toBe('INVALID_OP@0');
    expect(code([{ ...worst, instructionId: 'i1' }])).toBe('OUTSIDE_FENCE@0');
    expect(code([{ ...worst, instructionId: 'i1', blockId: 'ghost' }], { ...run, fence: new Set(['ghost']) })).toBe('STALE_BLOCK@0');
    expect(code([{ ...worst, instructionId: 'i1', blockId: blocks[1].id }])).toBe('STALE_BLOCK@0');
    expect(code([{ ...worst, instructionId: 'i1', blockId: blocks[1].id, expectHash: blocks[1].hash }])).toBe('INVALID_OP@0');
    // A stale first op wins over a forbidden second one: the batch is read in order.
    expect(code([{ ...replaceOp(blocks[1], 'x'), expectHash: 'stale' }, { ...replaceOp(blocks[2], 'y') }], { ...run, allowedOps: new Set(['replace_block']) })).toBe(
      'STALE_BLOCK@0',
    );
    expect(code([replaceOp(blocks[1], 'x'), { op: 'delete_block', blockId: blocks[2].id, expectHash: blocks[2].hash, instructionId: 'i1' }], { ...run, allowedOps: new Set(['replace_block']) })).toBe(
      'OP_NOT_ALLOWED@1',
    );
  });

  it('[OP1] leaves a refused batch byte-identical and never calls makeId', () => {
    const { ydoc, blocks, run, origin, made } = setup();
    const um = runUndoManager(ydoc, origin);
    const before = bytes(ydoc);
    const ops: Op[] = [
      replaceOp(blocks[0], '# Changed'),
      { op: 'insert_after', blockId: blocks[1].id, markdown: 'New', instructionId: 'i1' },
      { ...replaceOp(blocks[2], 'x'), expectHash: 'stale' },
    ];
    expect(refusal(applyOps(ydoc, ops, run, origin)).code).toBe('STALE_BLOCK');
    expect(bytes(ydoc)).toEqual(before);
    expect(made).toEqual([]);
    expect(um.undoStack).toHaveLength(0);
  });
});

describe('applyOps: what survives a replacement', () => {
  it('keeps the anchors of annotations on words the op does not touch', () => {
    const { ydoc, blocks, run, origin } = setup();
    const start = readProseMirrorDoc(ydoc).child(0).nodeSize + 1;
    const beta = anchorFromRange(ydoc, start + 6, start + 10).anchor;
    const delta = anchorFromRange(ydoc, start + 17, start + 22).anchor;
    const title = anchorFromRange(ydoc, 1, 6).anchor;
    expect(applyOps(ydoc, [replaceOp(blocks[1], 'Alpha beta **GAMMA** and delta'), replaceOp(blocks[0], '# Title, renamed')], run, origin).ok).toBe(true);
    expect(resolveAnchor(ydoc, beta)).toMatchObject({ status: 'attached', text: 'beta' });
    expect(resolveAnchor(ydoc, delta)).toMatchObject({ status: 'attached', text: 'delta' });
    expect(resolveAnchor(ydoc, title)).toMatchObject({ status: 'attached', text: 'Title' });
  });

  it('keeps an anchor on a word between two words the op replaces', () => {
    const { ydoc, blocks, run, origin } = setup();
    const start = readProseMirrorDoc(ydoc).child(0).nodeSize + 1;
    const gamma = anchorFromRange(ydoc, start + 11, start + 16).anchor;
    expect(resolveAnchor(ydoc, gamma)).toMatchObject({ status: 'attached', text: 'gamma' });
    expect(applyOps(ydoc, [replaceOp(blocks[1], 'Alpha BETA gamma DELTA')], run, origin).ok).toBe(true);
    expect(resolveAnchor(ydoc, gamma)).toMatchObject({ status: 'attached', text: 'gamma' });
  });

  it('[OP7] keeps the anchors inside a block whose type the op changes until Accept removes the old node', () => {
    const { ydoc, blocks, run, origin } = setup();
    const start = readProseMirrorDoc(ydoc).child(0).nodeSize + 1;
    const beta = anchorFromRange(ydoc, start + 6, start + 10).anchor;
    expect(applyOps(ydoc, [replaceOp(blocks[1], '## Alpha beta gamma delta')], run, origin).ok).toBe(true);
    expect(resolveAnchor(ydoc, beta)).toMatchObject({ status: 'attached', text: 'beta' });
    acceptRunText(ydoc, run.runId, serverOrigin);
    expect(resolveAnchor(ydoc, beta)).toEqual({ status: 'orphaned', reason: 'deleted' });
  });

  it('keeps text a person types meanwhile on another replica, wherever the two meet', () => {
    const { ydoc, blocks, run, origin } = setup();
    const person = new Y.Doc();
    Y.applyUpdate(person, Y.encodeStateAsUpdate(ydoc));
    const ytext = (docParts(person).content.get(1) as Y.XmlElement).get(0) as Y.XmlText;
    person.transact(() => {
      ytext.insert(ytext.length, ' (typed)');
      ytext.insert(6, 'very ');
    });
    expect(applyOps(ydoc, [replaceOp(blocks[1], 'Alpha beta GAMMA delta')], run, origin).ok).toBe(true);
    Y.applyUpdate(person, Y.encodeStateAsUpdate(ydoc, Y.encodeStateVector(person)));
    Y.applyUpdate(ydoc, Y.encodeStateAsUpdate(person, Y.encodeStateVector(ydoc)));
    expect(markdowns(ydoc)[1]).toBe('Alpha very beta GAMMA delta (typed)');
    expect(markdowns(person)).toEqual(markdowns(ydoc));
  });
  it('leaves the Yjs node of an untouched block between two changed ones alone, with what is typed in it', () => {
    const { ydoc, blocks, run, origin } = setup('Aaa\n\nBbb\n\nCcc\n\nDdd\n\nOutside');
    const person = new Y.Doc();
    Y.applyUpdate(person, Y.encodeStateAsUpdate(ydoc));
    const ytext = (docParts(person).content.get(2) as Y.XmlElement).get(0) as Y.XmlText;
    person.transact(() => ytext.insert(0, 'typed '));
    const untouched = docParts(ydoc).content.get(2);
    const ops: Op[] = [replaceOp(blocks[1], 'Bbb two\n\nExtra'), replaceOp(blocks[3], 'Ddd two')];
    expect(applyOps(ydoc, ops, run, origin).ok).toBe(true);
    expect(docParts(ydoc).content.get(3)).toBe(untouched);
    Y.applyUpdate(ydoc, Y.encodeStateAsUpdate(person, Y.encodeStateVector(ydoc)));
    expect(readTopBlocks(ydoc).map((b) => [b.id, b.markdown])).toEqual([
      [blocks[0].id, 'Aaa'],
      [blocks[1].id, 'Bbb two'],
      ['new1', 'Extra'],
      [blocks[2].id, 'typed Ccc'],
      [blocks[3].id, 'Ddd two'],
      [blocks[4].id, 'Outside'],
    ]);
  });
});
