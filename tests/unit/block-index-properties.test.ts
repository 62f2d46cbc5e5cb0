import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as Y from 'yjs';
import { applyOps, type ApplierRun } from '../../shared/applier/applier.ts';
import { blockIndexOf } from '../../shared/applier/block-index.ts';
import { scanBlocks, walkBlocks, type LiveBlocks } from '../../shared/applier/live-blocks.ts';
import { opKinds } from '../../shared/applier/op-kinds.ts';
import type { Op } from '../../shared/applier/ops.ts';
import { markPendingDelete, pendingDeleteAttr } from '../../shared/applier/pending-delete.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { runOrigin } from '../../shared/model/origins.ts';
import { runUndoManager } from '../../shared/applier/run-scope.ts';

/*
 * The block index (shared/applier/block-index.ts) kept by observing the text answers as a full
 * walk of the text does (`walkBlocks`, live-blocks.ts), whatever other replicas did between
 * batches: blocks inserted and deleted at any depth (lists, list items, quotes, and places ops
 * do not look: tables, paragraphs), ids changed, taken off or repeated, pending deletes marked
 * and taken off, several changes in one transaction, updates delivered out of order (held by
 * Yjs until their dependencies arrive), undo, and the applier's own batches and their discard.
 * Three replicas keep an index each; after every step each one is compared with a walk.
 *
 * fast-check prints the seed and the shrunk counterexample of a failure; replay with
 * TANDEM_SEED=<seed>. TANDEM_RUNS=n runs the property n times.
 */

const seed = process.env.TANDEM_SEED ? Number(process.env.TANDEM_SEED) : undefined;
const runs = process.env.TANDEM_RUNS ? Number(process.env.TANDEM_RUNS) : undefined;
const params = (numRuns: number) => ({ numRuns: runs ?? numRuns, ...(seed === undefined ? {} : { seed }) });
const timeout = runs === undefined ? 20_000 : 600_000;

/** Ids people's edits give blocks: few, so that they repeat. */
const idPool = ['a', 'b', 'c', 'd', 'e'] as const;

/** An element to insert, with what it holds. */
interface Tree {
  name: string;
  /** Its `id` attribute: a pool id, none, an empty string, or a number (not an id). */
  id: string | null | number;
  children: Tree[];
}

const idValue = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<string | null | number>(...idPool) },
  { weight: 1, arbitrary: fc.constantFrom<string | null | number>(null, '', 7) },
);
const leafName = fc.constantFrom('paragraph', 'paragraph', 'heading', 'code_block', 'horizontal_rule');
const holderName = fc.constantFrom('bullet_list', 'ordered_list', 'list_item', 'list_item', 'blockquote', 'table', 'table_cell', 'paragraph');

const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ name: leafName, id: idValue, children: fc.constant<Tree[]>([]) }),
    fc.record({ name: holderName, id: idValue, children: fc.array(tie('tree'), { maxLength: 3 }) }),
  ),
}));

type Edit =
  | { kind: 'insert'; place: number; at: number; tree: Tree }
  | { kind: 'delete'; pick: number }
  | { kind: 'setId'; pick: number; id: string | null | number }
  | { kind: 'pending'; pick: number; on: boolean }
  | { kind: 'type'; pick: number; text: string };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('insert' as const), place: fc.nat(), at: fc.nat(), tree }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('setId' as const), pick: fc.nat(), id: idValue }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pending' as const), pick: fc.nat(), on: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('type' as const), pick: fc.nat(), text: fc.constantFrom('x', 'yz') }) },
);

type Step =
  /** Edits by one replica in one transaction, as a person's (undoable on that replica). */
  | { kind: 'edits'; replica: number; edits: Edit[] }
  /** Every update `from` has emitted so far that `to` lacks, as a provider's sync sends it. */
  | { kind: 'sync'; from: number; to: number }
  /** Some of the updates `from` has emitted, in the order given: out of order, Yjs holds them. */
  | { kind: 'deliver'; from: number; to: number; which: number[] }
  /** The person's last edit on `replica` undone. */
  | { kind: 'undo'; replica: number }
  /** A batch of the applier's ops on the server (replica 0), on blocks it finds. */
  | { kind: 'batch'; picks: number[]; ops: number[] }
  /** The applier's batches so far discarded (the run's undo manager). */
  | { kind: 'discard' };

const replica = fc.integer({ min: 0, max: 2 });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('edits' as const), replica, edits: fc.array(edit, { minLength: 1, maxLength: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('sync' as const), from: replica, to: replica }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('deliver' as const), from: replica, to: replica, which: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('undo' as const), replica }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('batch' as const), picks: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), ops: fc.array(fc.nat(), { minLength: 3, maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('discard' as const) }) },
);

/** The origin of people's edits on a replica (their undo manager tracks it). */
const personOrigin = { person: true };

function build(tree: Tree): Y.XmlElement {
  const element = new Y.XmlElement(tree.name);
  if (tree.id !== null) element.setAttribute('id', tree.id as string);
  if (tree.children.length === 0 && tree.name !== 'horizontal_rule') element.insert(0, [new Y.XmlText('t')]);
  else element.insert(0, tree.children.map(build));
  return element;
}

/** Every element of the text at any depth, in document order, whatever holds it. */
function allElements(ydoc: Y.Doc): Y.XmlElement[] {
  const found: Y.XmlElement[] = [];
  const visit = (parent: Y.XmlFragment) => {
    for (const child of parent.toArray()) {
      if (child instanceof Y.XmlElement) {
        found.push(child);
        visit(child);
      }
    }
  };
  visit(docParts(ydoc).content);
  return found;
}

function applyEdit(ydoc: Y.Doc, edit: Edit): void {
  const elements = allElements(ydoc);
  if (edit.kind === 'insert') {
    const places: Y.XmlFragment[] = [docParts(ydoc).content, ...elements];
    const place = places[edit.place % places.length];
    place.insert(edit.at % (place.length + 1), [build(edit.tree)]);
    return;
  }
  if (elements.length === 0) return;
  const element = elements[edit.pick % elements.length];
  if (edit.kind === 'delete') {
    const parent = element.parent;
    if (parent instanceof Y.XmlFragment) parent.delete(parent.toArray().indexOf(element), 1);
  } else if (edit.kind === 'setId') {
    if (edit.id === null) element.removeAttribute('id');
    else element.setAttribute('id', edit.id as string);
  } else if (edit.kind === 'pending') {
    if (edit.on) markPendingDelete(element, 'other-run', String(element.getAttribute('id')), 'h');
    else element.removeAttribute(pendingDeleteAttr);
  } else {
    const text = element.toArray().find((child): child is Y.XmlText => child instanceof Y.XmlText);
    text?.insert(0, edit.text);
  }
}

/** Every string id carried anywhere in the text, with the pool's and one no block carries. */
function idsToAsk(ydoc: Y.Doc): Set<string> {
  const ids = new Set<string>([...idPool, 'nowhere']);
  for (const element of allElements(ydoc)) {
    const id = element.getAttribute('id');
    if (typeof id === 'string' && id !== '') ids.add(id);
  }
  return ids;
}

/** How `live` answers for `named`, as plain values (elements by their Yjs item id). */
function answers(live: LiveBlocks, named: ReadonlySet<string>) {
  const key = (type: Y.XmlFragment) => (type._item === null ? 'fragment' : `${type._item.id.client}:${type._item.id.clock}`);
  return [...named].sort().map((id) => {
    const found = live.found.get(id);
    return {
      id,
      carried: live.carries(id),
      found:
        found === undefined
          ? null
          : { block: key(found.yblock), parent: key(found.parent), ancestors: found.ancestors, order: found.order },
    };
  });
}

/** The index of `ydoc` answers every id as a walk of its text does. */
function expectAgreement(ydoc: Y.Doc, where: string): void {
  expect(blockIndexOf(ydoc), `${where}: the index is in use`).not.toBeNull();
  const named = idsToAsk(ydoc);
  expect(answers(scanBlocks(ydoc, named), named), where).toEqual(answers(walkBlocks(ydoc, named), named));
}

/**
 * The hash of the block carrying `id` as an op expects it, or null when the block cannot be read
 * as Markdown (a shape no editor writes, such as a table cell outside a table: not the index's
 * concern here).
 */
function readableHash(live: LiveBlocks, id: string): string | null {
  try {
    return live.read(id)?.hash ?? null;
  } catch {
    return null;
  }
}

/** Op kinds a batch step picks from, with the Markdown it writes. */
function opFor(kind: number, blockId: string, hash: string, count: number): Op {
  const instructionId = 'i1';
  switch (kind % 5) {
    case 0:
      return { op: 'replace_block', blockId, markdown: `revised ${count}`, expectHash: hash, instructionId };
    case 1:
      return { op: 'replace_block', blockId, markdown: `## heading ${count}`, expectHash: hash, instructionId };
    case 2:
      return { op: 'delete_block', blockId, expectHash: hash, instructionId };
    case 3:
      return { op: 'insert_after', blockId, markdown: `new ${count}\n\n- item ${count}`, instructionId };
    default:
      return { op: 'replace_block', blockId, markdown: `- one ${count}\n- two`, expectHash: hash, instructionId };
  }
}

describe('block index (fast-check)', () => {
  it('agrees with a walk of the text after any edits of other replicas, batches and discards', () => {
    fc.assert(
      fc.property(fc.array(tree, { minLength: 1, maxLength: 4 }), fc.array(step, { minLength: 1, maxLength: 12 }), (initial, steps) => {
        const replicas = [0, 1, 2].map((n) => {
          const ydoc = new Y.Doc();
          ydoc.clientID = n + 1;
          return ydoc;
        });
        replicas[0].transact(() => docParts(replicas[0]).content.insert(0, initial.map(build)));
        const start = Y.encodeStateAsUpdate(replicas[0]);
        for (const other of replicas.slice(1)) Y.applyUpdate(other, start);
        const logs: Uint8Array[][] = replicas.map(() => []);
        replicas.forEach((ydoc, n) => ydoc.on('update', (update: Uint8Array) => logs[n].push(update)));
        const people = replicas.map((ydoc) => new Y.UndoManager(docParts(ydoc).content, { trackedOrigins: new Set([personOrigin]) }));
        const origin = runOrigin('run');
        const runUndo = runUndoManager(replicas[0], origin);
        let made = 0;
        const run: ApplierRun = { runId: 'run', fence: new Set(), instructions: new Set(['i1']), allowedOps: new Set(opKinds), makeId: () => `n${++made}` };
        replicas.forEach((ydoc, n) => expectAgreement(ydoc, `replica ${n}, before any step`));

        steps.forEach((current, at) => {
          if (current.kind === 'edits') {
            const ydoc = replicas[current.replica];
            ydoc.transact(() => current.edits.forEach((one) => applyEdit(ydoc, one)), personOrigin);
            people[current.replica].stopCapturing();
          } else if (current.kind === 'sync') {
            Y.applyUpdate(replicas[current.to], Y.encodeStateAsUpdate(replicas[current.from], Y.encodeStateVector(replicas[current.to])));
          } else if (current.kind === 'deliver') {
            const log = logs[current.from];
            if (log.length > 0) for (const n of current.which) Y.applyUpdate(replicas[current.to], log[n % log.length]);
          } else if (current.kind === 'undo') {
            people[current.replica].undo();
          } else if (current.kind === 'batch') {
            const server = replicas[0];
            const candidates = [...walkBlocks(server, idsToAsk(server)).found.keys()].sort();
            if (candidates.length === 0) return;
            const walked = walkBlocks(server, new Set(candidates));
            const ops: Op[] = [];
            const fence = new Set<string>();
            current.picks.forEach((pick, n) => {
              const blockId = candidates[pick % candidates.length];
              const hash = readableHash(walked, blockId);
              if (hash === null || fence.has(blockId)) return;
              fence.add(blockId);
              ops.push(opFor(current.ops[n], blockId, hash, at));
            });
            if (ops.length > 0) applyOps(server, ops, { ...run, fence }, origin);
          } else {
            runUndo.undo();
          }
          replicas.forEach((ydoc, n) => expectAgreement(ydoc, `replica ${n}, after step ${at} (${current.kind})`));
        });

        // Every replica given everything: the same text, each index still agreeing.
        for (const to of replicas) for (const from of replicas) Y.applyUpdate(to, Y.encodeStateAsUpdate(from, Y.encodeStateVector(to)));
        replicas.forEach((ydoc, n) => expectAgreement(ydoc, `replica ${n}, after every update`));
        expect(docParts(replicas[1]).content.toString()).toBe(docParts(replicas[0]).content.toString());
        replicas.forEach((ydoc) => ydoc.destroy());
      }),
      params(100),
    );
  }, timeout);

  it('is kept while a transaction is open: a batch inside one reads the text by a walk', () => {
    const ydoc = new Y.Doc();
    const content = docParts(ydoc).content;
    const paragraph = (id: string) => {
      const element = new Y.XmlElement('paragraph');
      element.setAttribute('id', id);
      element.insert(0, [new Y.XmlText(id)]);
      return element;
    };
    ydoc.transact(() => content.insert(0, [paragraph('a'), paragraph('b')]));
    expect(scanBlocks(ydoc, new Set(['a'])).found.has('a')).toBe(true);
    ydoc.transact(() => {
      content.insert(0, [paragraph('c')]);
      expect(blockIndexOf(ydoc)).toBeNull();
      // Inside the transaction the observer has not run yet: the walk finds the new block.
      expect(scanBlocks(ydoc, new Set(['c'])).found.has('c')).toBe(true);
    });
    expect(blockIndexOf(ydoc)).not.toBeNull();
    expect(scanBlocks(ydoc, new Set(['c'])).found.get('c')?.order).toBe(0);
  });
});
