/**
 * `npx tsx bench/review-typing.ts`: 200 characters typed one transaction each into a
 * 1,000-paragraph document with a run in review (two changed paragraphs, one deleted), through
 * the review plugin alone (no view). Prints the time per transaction and how many times the
 * review decorations were built from the whole text. Not part of `npm test` or `npm run bench`.
 */
import { EditorState, TextSelection } from 'prosemirror-state';
import type { Node } from 'prosemirror-model';
import { schema } from '../shared/model/schema.ts';
import { reviewKey, reviewPlugin, setRunsTr } from '../client/review-plugin.ts';

const { nodes, marks } = schema;
const runId = 'r1';
const run = { runId, state: 'review', items: [{ instructionId: 'i1' }, { instructionId: 'i2' }] } as unknown as Parameters<
  typeof setRunsTr
>[1][number];

function bigDoc(): Node {
  const blocks: Node[] = [];
  for (let index = 0; index < 1000; index += 1) {
    const id = `b${index}`;
    const change = (instructionId: string) => marks.change.create({ runId, instructionId });
    if (index === 10 || index === 500) {
      const text = [schema.text('Kept, '), schema.text('new text', [change(index === 10 ? 'i1' : 'i2')]), schema.text(' kept.')];
      blocks.push(nodes.paragraph.create({ id }, text));
    } else if (index === 700) {
      const deleting = JSON.stringify({ runId, blockId: id, hash: 'h', seen: {} });
      blocks.push(nodes.paragraph.create({ id, deleting }, schema.text('Deleted by the run.')));
    } else {
      blocks.push(nodes.paragraph.create({ id }, schema.text(`Paragraph ${index} of a long document, with some words in it.`)));
    }
  }
  return nodes.doc.create(null, blocks);
}

function typeOnce(): { msPerTransaction: number; builds: number | undefined } {
  let state = EditorState.create({ doc: bigDoc(), plugins: [reviewPlugin()] });
  state = state.apply(setRunsTr(state.tr, [run]));
  const before = reviewKey.getState(state) as { builds?: number } | undefined;
  let caret = 0;
  for (let index = 0; index < 300; index += 1) caret += state.doc.child(index).nodeSize;
  caret += state.doc.child(300).nodeSize - 1;
  state = state.apply(state.tr.setSelection(TextSelection.create(state.doc, caret)));
  const started = performance.now();
  for (let typed = 0; typed < 200; typed += 1) state = state.apply(state.tr.insertText('x'));
  const elapsed = performance.now() - started;
  const after = reviewKey.getState(state) as { builds?: number } | undefined;
  const builds = after?.builds === undefined ? undefined : after.builds - (before?.builds ?? 0);
  return { msPerTransaction: elapsed / 200, builds };
}

typeOnce();
const rounds = Array.from({ length: 5 }, typeOnce);
const times = rounds.map((each) => each.msPerTransaction).sort((a, b) => a - b);
console.log(
  `200 keystrokes, 1,000 paragraphs, a run in review: median ${times[2].toFixed(3)} ms per transaction ` +
    `(min ${times[0].toFixed(3)}, max ${times[4].toFixed(3)}); decoration builds while typing: ${rounds[0].builds ?? 'one per keystroke (not counted)'}`,
);
