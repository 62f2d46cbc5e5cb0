import { Plugin, PluginKey, TextSelection, type Command, type EditorState, type Transaction } from 'prosemirror-state';
import { Decoration, DecorationSet } from 'prosemirror-view';
import type { Node } from 'prosemirror-model';
import { ReplaceStep } from 'prosemirror-transform';
import { ySyncPluginKey } from 'y-prosemirror';
import { schema } from '../shared/model/schema.ts';
import type { RunRecord } from '../shared/protocol/run-record.ts';
import { parsePendingDelete } from '../shared/applier/pending-delete-attr.ts';

/**
 * The review in the text. The applier marks every piece of text a run inserted with the
 * `change` mark (rendered by the schema as `span.tandem-change[data-run][data-instruction]`);
 * this plugin puts after each marked stretch a badge with the 1-based number of the
 * instruction it answers, its place among the run's items. The runs come in from the runs
 * Y.Doc as a `setRuns` transaction. The decorations are built from the text when the runs
 * change and when the text comes from Yjs (the binding replaces the whole text, so nothing maps
 * through it), and after an edit that may move a stretch's bounds or a block's; typing in a
 * block with no run's text maps them through the transaction instead. A block a run deleted, which stays until the run is decided (PROTOCOL.md OP7), is shown
 * struck through for everyone: the block gets the class `tandem-deleting` and the ARIA role
 * `deletion` (what `<del>` means), and starts with a label for screen readers.
 */

/** One stretch of text inserted by a run for one instruction. */
export interface ChangeRange {
  runId: string;
  instructionId: string;
  from: number;
  to: number;
}

interface ReviewState {
  /** Per run id, per instruction id, the instruction's number in its run. */
  numbers: ReadonlyMap<string, ReadonlyMap<string, number>>;
  decorations: DecorationSet;
  /** How many times the decorations were built from the whole text (tests and bench/ count them). */
  builds: number;
}

type ReviewMeta = { type: 'runs'; runs: readonly Pick<RunRecord, 'runId' | 'state' | 'items'>[] };

export const reviewKey = new PluginKey<ReviewState>('tandem-review');

export function reviewPlugin(): Plugin<ReviewState> {
  return new Plugin<ReviewState>({
    key: reviewKey,
    state: {
      init: () => ({ numbers: new Map(), decorations: DecorationSet.empty, builds: 0 }),
      apply(tr, prev, _old, state) {
        const meta = tr.getMeta(reviewKey) as ReviewMeta | undefined;
        if (!meta && !tr.docChanged) return prev;
        if (!meta && mapsExactly(tr)) return { ...prev, decorations: prev.decorations.map(tr.mapping, tr.doc) };
        const numbers = meta ? numberItems(meta.runs) : prev.numbers;
        return { numbers, decorations: decorate(state.doc, numbers), builds: prev.builds + 1 };
      },
    },
    props: {
      decorations: (state) => reviewKey.getState(state)?.decorations,
    },
  });
}

/**
 * Whether mapping the decorations through `tr` gives what building them from its text would:
 * a local edit whose every step replaces inline content inside one textblock that holds no
 * run's text, with none in what it inserts. Such a step moves no block boundary, no block's
 * attributes and no change mark, so every badge and every deleted block keeps its place.
 */
function mapsExactly(tr: Transaction): boolean {
  if (tr.getMeta(ySyncPluginKey)?.isChangeOrigin) return false;
  return tr.steps.every((step, index) => {
    if (!(step instanceof ReplaceStep) || step.slice.openStart !== 0 || step.slice.openEnd !== 0) return false;
    const doc = tr.docs[index];
    const $from = doc.resolve(step.from);
    const block = $from.parent;
    if (!block.isTextblock || step.to > $from.end()) return false;
    let inline = true;
    step.slice.content.forEach((node) => (inline &&= node.isInline && !hasChangeMark(node)));
    if (!inline) return false;
    let clean = true;
    block.forEach((node) => (clean &&= !hasChangeMark(node)));
    return clean;
  });
}

function hasChangeMark(node: Node): boolean {
  return node.marks.some((mark) => mark.type === schema.marks.change);
}

/** Only runs being worked on or in review have changes on show (Accept removes the marks). */
function numberItems(runs: ReviewMeta['runs']): Map<string, Map<string, number>> {
  const shown = runs.filter((run) => run.state === 'claimed' || run.state === 'review');
  return new Map(shown.map((run) => [run.runId, new Map(run.items.map((item, index) => [item.instructionId, index + 1]))]));
}

/** Every stretch of run-inserted text in `doc`, in document order; touching pieces of one instruction join. */
export function changeRanges(doc: Node): ChangeRange[] {
  const ranges: ChangeRange[] = [];
  doc.descendants((node, pos) => {
    if (!node.isText) return true;
    const mark = node.marks.find((each) => each.type === schema.marks.change);
    if (!mark) return false;
    const { runId, instructionId } = mark.attrs as { runId: string; instructionId: string };
    const last = ranges[ranges.length - 1];
    if (last && last.to === pos && last.runId === runId && last.instructionId === instructionId) last.to = pos + node.nodeSize;
    else ranges.push({ runId, instructionId, from: pos, to: pos + node.nodeSize });
    return false;
  });
  return ranges;
}

function decorate(doc: Node, numbers: ReviewState['numbers']): DecorationSet {
  const decorations: Decoration[] = pendingDeleteDecorations(doc);
  // Without a run to number (the usual case) the text is not walked at every keystroke.
  if (numbers.size === 0) return decorations.length ? DecorationSet.create(doc, decorations) : DecorationSet.empty;
  for (const range of changeRanges(doc)) {
    const number = numbers.get(range.runId)?.get(range.instructionId);
    if (number === undefined) continue;
    decorations.push(
      Decoration.widget(range.to, () => badge(number, range), {
        side: -1,
        // Outside the change's own span, so that the span holds exactly the run's text.
        marks: [],
        ignoreSelection: true,
        key: `change:${range.runId}:${range.instructionId}:${number}`,
      }),
    );
  }
  return decorations.length ? DecorationSet.create(doc, decorations) : DecorationSet.empty;
}

/**
 * Blocks a run deleted, pending review, at any depth (OP12: a list item too): struck through, and
 * named for screen readers. Only blocks that hold blocks are descended into, so the walk costs
 * one attribute read per paragraph.
 */
function pendingDeleteDecorations(doc: Node): Decoration[] {
  const decorations: Decoration[] = [];
  doc.descendants((block, offset) => {
    markPending(block, offset, decorations);
    return !block.isTextblock && !block.isLeaf;
  });
  return decorations;
}

function markPending(block: Node, offset: number, decorations: Decoration[]): void {
  const pending = parsePendingDelete(block.attrs.deleting);
  if (!pending) return;
  decorations.push(
    Decoration.node(offset, offset + block.nodeSize, {
      class: 'tandem-deleting',
      role: 'deletion',
      'data-deleting-run': pending.runId,
      title: 'Deleted by the run: removed if the run is accepted',
    }),
  );
  // The label goes at the start of the block's text (for a list item, its first paragraph's).
  const labelAt = block.isTextblock ? offset + 1 : block.firstChild?.isTextblock ? offset + 2 : null;
  if (labelAt !== null) {
    decorations.push(
      Decoration.widget(labelAt, deletedLabel, { side: -1, marks: [], ignoreSelection: true, key: `deleting:${pending.runId}` }),
    );
  }
}

function deletedLabel(): HTMLElement {
  const label = document.createElement('span');
  label.className = 'visually-hidden';
  label.textContent = 'deleted by the run: ';
  return label;
}

/** The number after a change. Hidden from screen readers: the review panel lists the same. */
function badge(number: number, range: ChangeRange): HTMLElement {
  const sup = document.createElement('sup');
  sup.className = 'change-badge';
  sup.textContent = String(number);
  sup.title = `Changed for instruction ${number}`;
  sup.setAttribute('aria-hidden', 'true');
  sup.dataset.instructionNumber = String(number);
  sup.dataset.instruction = range.instructionId;
  sup.dataset.run = range.runId;
  return sup;
}

/** Sets the runs whose changes are numbered (a transaction that changes no text). */
export function setRunsTr(tr: Transaction, runs: ReviewMeta['runs']): Transaction {
  return tr.setMeta(reviewKey, { type: 'runs', runs } satisfies ReviewMeta).setMeta('addToHistory', false);
}

/** Selects the first stretch of text that run `runId` inserted for `instructionId`; false when there is none. */
export function selectChange(runId: string, instructionId: string): Command {
  return (state: EditorState, dispatch) => {
    const range = changeRanges(state.doc).find((each) => each.runId === runId && each.instructionId === instructionId);
    if (!range) return false;
    dispatch?.(state.tr.setSelection(TextSelection.create(state.doc, range.from, range.to)).scrollIntoView());
    return true;
  };
}
