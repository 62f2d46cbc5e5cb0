/**
 * 2. Applier. Documents of 100, 1,000 and 10,000 blocks; batches of 1, 10 and 100 ops that each
 * append to one block's text: the time to validate and apply a batch, and the time to discard
 * it (undo the run), beside the same edits written as one raw Yjs transaction and undone with a
 * `Y.UndoManager` (the floor), and beside the path an editor-bound AI takes (Tiptap's and
 * BlockNote's AI extensions write an answer through the editor: its Markdown parsed, one
 * ProseMirror transaction on the state a y-prosemirror binding holds, written to Yjs as the
 * binding writes it).
 *
 * The applier comes in through one file, `bench/applier-subject.ts`, which exports
 * `subject: ApplierSubject` (below) around it. Without that file this benchmark prints
 * "applier: not built yet" and is skipped.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as Y from 'yjs';
import { initProseMirrorDoc, updateYFragment } from 'y-prosemirror';
import { EditorState } from 'prosemirror-state';
import { buildInitialState } from '../server/docs/create-doc.ts';
import { docParts } from '../shared/model/doc-layout.ts';
import { readBlocks } from '../shared/model/doc-content.ts';
import { markdownToDoc } from '../shared/model/markdown.ts';
import { schema } from '../shared/model/schema.ts';
import { blockIndexOf } from '../shared/applier/block-index.ts';
import { paragraphsMarkdown } from './lib/docs.ts';
import { percentile } from './lib/stats.ts';
import { rowsFor, type Benchmark } from './lib/types.ts';

/** What `bench/applier-subject.ts` exports as `subject`: the applier behind a narrow surface. */
export interface ApplierSubject {
  /**
   * The ops an agent would send to append `suffix` to the text of each block in `blockIds`
   * (untimed: building ops is the agent's work).
   */
  makeOps(ydoc: Y.Doc, blockIds: readonly string[], suffix: string): unknown;
  /** Validates and applies `ops` as one transaction; throws if the applier refuses them. Timed. */
  apply(ydoc: Y.Doc, ops: unknown): unknown;
  /** Discards what `apply` did (`applied` is its return value), as "Discard run" does. Timed. */
  discard(ydoc: Y.Doc, applied: unknown): void;
}

const subjectUrl = new URL('./applier-subject.ts', import.meta.url);
const blockCounts = [100, 1_000, 10_000];
const batchSizes = [1, 10, 100];
const suffix = ' (revised by the agent)';
const floorName = 'raw Yjs transaction + UndoManager';
const editorBoundName = 'editor-bound: Markdown → one ProseMirror transaction → y-prosemirror';
const projectionName = "the editor-bound path's projection (y-prosemirror initProseMirrorDoc), once per loaded document";

export const applier: Benchmark = {
  name: 'applier',
  async run(ctx) {
    if (!existsSync(fileURLToPath(subjectUrl))) return { rows: [], skipped: 'applier: not built yet' };
    const { subject } = (await import(subjectUrl.href)) as { subject: ApplierSubject };
    const runs = ctx.quick ? 3 : 21;
    const { rows, add } = rowsFor('applier');
    const subjectEdit = (ydoc: Y.Doc, ids: string[]): Edit => {
      const ops = subject.makeOps(ydoc, ids, suffix);
      return { apply: () => subject.apply(ydoc, ops), discard: (applied) => subject.discard(ydoc, applied) };
    };
    // Warms the code up, so that the first case measured is not also the one the JIT learns on:
    // a few batches of 10 left the applier half-compiled for the first case of 100 ops (a median
    // of 21 runs 3-4 times its steady state, while the floor, a few calls, was warm).
    const small = buildInitialState({ kind: 'text', title: 'Applier', markdown: paragraphsMarkdown(50, 200) });
    measure(small, 50, 100, subjectEdit);
    measure(small, 50, 100, rawEdit);
    measure(small, 50, 100, editorBoundEdit);
    for (const blocks of blockCounts) {
      const state = buildInitialState({ kind: 'text', title: 'Applier', markdown: paragraphsMarkdown(blocks, 200) });
      const load = measureLoad(state, runs);
      add({
        case: `${blocks.toLocaleString('en-US')} blocks`,
        metric: 'block index build, once per loaded document',
        unit: 'ms',
        better: 'lower',
        tandem: load.index,
        baseline: load.projection,
        baselineName: projectionName,
      });
      for (const batch of batchSizes) {
        ctx.log(`applier: ${blocks} blocks, batches of ${batch}`);
        const tandem = measure(state, batch, runs, subjectEdit);
        const floor = measure(state, batch, runs, rawEdit);
        const editorBound = measure(state, batch, runs, editorBoundEdit);
        const label = `${blocks.toLocaleString('en-US')} blocks, ${batch} op${batch === 1 ? '' : 's'}`;
        const pair = { case: label, unit: 'ms' as const, better: 'lower' as const, baselineName: floorName };
        add({ ...pair, metric: 'validate + apply', tandem: tandem.apply, baseline: floor.apply });
        add({ ...pair, metric: 'discard', tandem: tandem.discard, baseline: floor.discard });
        add({ ...pair, baselineName: editorBoundName, metric: 'validate + apply', tandem: tandem.apply, baseline: editorBound.apply });
      }
    }
    return { rows };
  },
};

interface Edit {
  apply(): unknown;
  discard(applied: unknown): void;
}

/** Median apply and discard times over `runs` fresh copies of the document (one warm-up first). */
function measure(state: Uint8Array, batch: number, runs: number, prepare: (ydoc: Y.Doc, ids: string[]) => Edit) {
  const applyTimes: number[] = [];
  const discardTimes: number[] = [];
  for (let run = 0; run <= runs; run++) {
    const ydoc = new Y.Doc();
    Y.applyUpdate(ydoc, state);
    const edit = prepare(ydoc, spreadBlockIds(ydoc, batch));
    const t0 = performance.now();
    const applied = edit.apply();
    const t1 = performance.now();
    edit.discard(applied);
    const t2 = performance.now();
    if (run > 0) {
      applyTimes.push(t1 - t0);
      discardTimes.push(t2 - t1);
    }
    ydoc.destroy();
  }
  return { apply: percentile(applyTimes, 50), discard: percentile(discardTimes, 50) };
}

/**
 * Median times, on fresh copies of the document, to build its block index (block-index.ts: the
 * first batch after a load pays it, later ones do not; `measure` leaves it out) and to project
 * it as an editor-bound path does once before its first edit (also left out of `measure`).
 */
function measureLoad(state: Uint8Array, runs: number) {
  const indexTimes: number[] = [];
  const projectionTimes: number[] = [];
  for (let run = 0; run <= runs; run++) {
    const ydoc = new Y.Doc();
    Y.applyUpdate(ydoc, state);
    const t0 = performance.now();
    blockIndexOf(ydoc);
    const t1 = performance.now();
    initProseMirrorDoc(docParts(ydoc).content, schema);
    const t2 = performance.now();
    if (run > 0) {
      indexTimes.push(t1 - t0);
      projectionTimes.push(t2 - t1);
    }
    ydoc.destroy();
  }
  return { index: percentile(indexTimes, 50), projection: percentile(projectionTimes, 50) };
}

/** The ids of `count` blocks spread evenly over the document. */
function spreadBlockIds(ydoc: Y.Doc, count: number): string[] {
  const blocks = docParts(ydoc).content.toArray();
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const block = blocks[Math.floor((index * blocks.length) / count)];
    if (block instanceof Y.XmlElement) ids.push(String(block.getAttribute('id')));
  }
  return ids;
}

/** The floor: the same appends as one Yjs transaction, found by id, undone by an UndoManager. */
function rawEdit(ydoc: Y.Doc, ids: string[]): Edit {
  const origin = { run: 'floor' };
  const content = docParts(ydoc).content;
  const undo = new Y.UndoManager(content, { trackedOrigins: new Set([origin]), captureTimeout: Number.MAX_SAFE_INTEGER });
  return {
    apply() {
      const wanted = new Set(ids);
      ydoc.transact(() => {
        for (const block of content.toArray()) {
          if (!(block instanceof Y.XmlElement) || !wanted.has(String(block.getAttribute('id')))) continue;
          const text = block.toArray().find((child): child is Y.XmlText => child instanceof Y.XmlText);
          text?.insert(text.length, suffix);
        }
      }, origin);
      return null;
    },
    discard() {
      undo.undo();
      undo.destroy();
    },
  };
}

/**
 * The editor-bound path: the editor already holds the document as a y-prosemirror binding does
 * (untimed); each edit's Markdown (the block's, plus the suffix) is parsed, the blocks are
 * replaced in one ProseMirror transaction, and the new document is written to Yjs as the
 * binding's `_prosemirrorChanged` writes it (`updateYFragment`, one transaction); undone by an
 * UndoManager. It checks nothing: no hashes, no fence, no change marks.
 */
function editorBoundEdit(ydoc: Y.Doc, ids: string[]): Edit {
  const origin = { editor: 'bound' };
  const content = docParts(ydoc).content;
  const { doc, meta } = initProseMirrorDoc(content, schema);
  const state = EditorState.create({ schema, doc });
  const answers = new Map(readBlocks(ydoc).filter((block) => ids.includes(block.id)).map((block) => [block.id, block.markdown + suffix]));
  const undo = new Y.UndoManager(content, { trackedOrigins: new Set([origin]), captureTimeout: Number.MAX_SAFE_INTEGER });
  return {
    apply() {
      const tr = state.tr;
      const targets: { pos: number; size: number; id: string; markdown: string }[] = [];
      tr.doc.forEach((block, pos) => {
        const markdown = answers.get(String(block.attrs.id));
        if (markdown !== undefined) targets.push({ pos, size: block.nodeSize, id: String(block.attrs.id), markdown });
      });
      for (const { pos, size, id, markdown } of targets.reverse()) {
        const parsed = markdownToDoc(markdown).content;
        const first = parsed.firstChild;
        const blocks = first ? parsed.replaceChild(0, first.type.create({ ...first.attrs, id }, first.content, first.marks)) : parsed;
        tr.replaceWith(pos, pos + size, blocks);
      }
      ydoc.transact(() => updateYFragment(ydoc, content, tr.doc, meta), origin);
      return null;
    },
    discard() {
      undo.undo();
      undo.destroy();
    },
  };
}
