import { describe, expect, it } from 'vitest';
import { EditorState, TextSelection, type Transaction } from 'prosemirror-state';
import type { Node } from 'prosemirror-model';
import type { DecorationSet } from 'prosemirror-view';
import { schema } from '../../shared/model/schema.ts';
import { reviewKey, reviewPlugin, setRunsTr } from '../../client/review-plugin.ts';

const { nodes, marks } = schema;
const runId = 'r1';
const run = {
  runId,
  state: 'review' as const,
  items: [{ instructionId: 'i1' }, { instructionId: 'i2' }],
} as unknown as Parameters<typeof setRunsTr>[1][number];

/** 1,000 paragraphs; the run changed paragraphs 10 and 500, and deleted paragraph 700. */
function bigDoc(): Node {
  const blocks: Node[] = [];
  for (let index = 0; index < 1000; index += 1) {
    const id = `b${index}`;
    if (index === 10 || index === 500) {
      const instructionId = index === 10 ? 'i1' : 'i2';
      blocks.push(
        nodes.paragraph.create({ id }, [
          schema.text('Kept text, '),
          schema.text('new text', [marks.change.create({ runId, instructionId })]),
          schema.text(' and more.'),
        ]),
      );
    } else if (index === 700) {
      const deleting = JSON.stringify({ runId, blockId: id, hash: 'h', seen: {} });
      blocks.push(nodes.paragraph.create({ id, deleting }, schema.text('Deleted by the run.')));
    } else {
      blocks.push(nodes.paragraph.create({ id }, schema.text(`Paragraph ${index} of the document.`)));
    }
  }
  return nodes.doc.create(null, blocks);
}

/** Where each block starts in `doc`'s content, for putting the caret at its end. */
function endOfBlock(doc: Node, index: number): number {
  let pos = 0;
  for (let each = 0; each < index; each += 1) pos += doc.child(each).nodeSize;
  return pos + doc.child(index).nodeSize - 1;
}

function inReview(): EditorState {
  const state = EditorState.create({ doc: bigDoc(), plugins: [reviewPlugin()] });
  return state.apply(setRunsTr(state.tr, [run]));
}

function type(state: EditorState, block: number, text: string): EditorState {
  for (const char of text) {
    const at = endOfBlock(state.doc, block);
    const tr: Transaction = state.tr.setSelection(TextSelection.create(state.doc, at)).insertText(char);
    state = state.apply(tr);
  }
  return state;
}

/** The decorations as comparable text: place and key (each badge's key names its run, instruction and number). */
function describeSet(set: DecorationSet | undefined): string[] {
  return (set?.find() ?? []).map((each) => `${each.from}-${each.to}:${(each.spec as { key?: string }).key ?? 'node'}`).sort();
}

/** The decorations built afresh from `state`'s text, by a plugin that has seen only the runs. */
function rebuilt(state: EditorState): string[] {
  const fresh = EditorState.create({ doc: state.doc, plugins: [reviewPlugin()] });
  return describeSet(reviewKey.getState(fresh.apply(setRunsTr(fresh.tr, [run])))?.decorations);
}

describe('review decorations', () => {
  it('maps the badges and struck blocks through typing in text no run changed, building them no more', () => {
    const start = inReview();
    const builds = reviewKey.getState(start)!.builds;
    const typed = type(start, 300, 'x'.repeat(200));
    const after = reviewKey.getState(typed)!;
    expect(after.builds).toBe(builds);
    expect(describeSet(after.decorations)).toEqual(rebuilt(typed));
    expect(describeSet(after.decorations)).toHaveLength(4);
  });

  it('keeps the badges where building them would put them when typing before a change in the same document', () => {
    const typed = type(inReview(), 5, 'abc');
    const after = reviewKey.getState(typed)!;
    expect(describeSet(after.decorations)).toEqual(rebuilt(typed));
  });

  it('builds the decorations again when the typing is in a block that holds the run’s text', () => {
    const start = inReview();
    const builds = reviewKey.getState(start)!.builds;
    const typed = type(start, 10, 'yz');
    const after = reviewKey.getState(typed)!;
    expect(after.builds).toBe(builds + 2);
    expect(describeSet(after.decorations)).toEqual(rebuilt(typed));
  });

  it('builds the decorations again when the runs change', () => {
    const start = inReview();
    const builds = reviewKey.getState(start)!.builds;
    const accepted = start.apply(setRunsTr(start.tr, [{ ...run, state: 'accepted' }]));
    const after = reviewKey.getState(accepted)!;
    expect(after.builds).toBe(builds + 1);
    const deleted = endOfBlock(start.doc, 699) + 1;
    const size = start.doc.child(700).nodeSize;
    expect(describeSet(after.decorations)).toEqual([`${deleted}-${deleted + size}:node`, `${deleted + 1}-${deleted + 1}:deleting:r1`]);
  });

  it('builds the decorations again after a split, which moves block boundaries', () => {
    const start = inReview();
    const builds = reviewKey.getState(start)!.builds;
    const at = endOfBlock(start.doc, 699);
    const split = start.apply(start.tr.split(at));
    const after = reviewKey.getState(split)!;
    expect(after.builds).toBe(builds + 1);
    expect(describeSet(after.decorations)).toEqual(rebuilt(split));
  });
});
