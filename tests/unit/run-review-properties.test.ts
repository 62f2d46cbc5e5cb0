import { readTopBlocks } from '../helpers/applier-fixture.ts';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as Y from 'yjs';
import { applyOps, type ApplierRun } from '../../shared/applier/applier.ts';
import { readBlocks, readProseMirrorDoc } from '../../shared/model/doc-content.ts';
import { giveNestedIds } from '../../shared/model/nested-ids.ts';
import type { Node as PMNode } from 'prosemirror-model';
import { docParts } from '../../shared/model/doc-layout.ts';
import { opKinds } from '../../shared/applier/op-kinds.ts';
import type { Op } from '../../shared/applier/ops.ts';
import { revertOrigin, runOrigin, serverOrigin } from '../../shared/model/origins.ts';
import { acceptRunText, pendingDeletes } from '../../shared/applier/pending-delete.ts';
import { applyRevert, planRevert } from '../../shared/applier/run-revert.ts';
import { keepRunDeletions, restoreRunScope, runUndoManager, saveRunScope, undoRun, withDeletions } from '../../shared/applier/run-scope.ts';
import { insertedRoots } from '../../shared/applier/undo-keeps-typing.ts';
import { itemsOfRun, keepInScope, managerScope, undoRunItems } from '../../shared/applier/run-items.ts';
import { tagBatch } from '../../shared/applier/item-parts.ts';
import type { Change } from '../../shared/applier/applier.ts';
import { makeBlocksYDoc, replicaOf } from '../helpers/doc-builder.ts';

/*
 * Nothing a person types is lost to a run's review (OP7, REV6, REV7), over random documents,
 * random runs of several batches and random typing on three replicas that exchange updates in
 * a random order, one of them offline for the whole run. Every update reaches every replica
 * before the run is decided (an edit that reaches the server only after a decision removed its
 * block cannot be saved by anything the server does). Then the server discards or accepts the
 * run, on its live Y.Doc or after a restart (the scope saved and read back, the document
 * reloaded with the run's deletions kept), and the decision reaches everyone.
 *
 * People type X, Y and Z, the run writes a–e (and copies the X, Y and Z of a block it rewrites,
 * and deletes no block holding any, so that a loss could only be the review's doing): every
 * X, Y and Z typed is in the text of every replica afterwards (its Yjs item alive under live
 * parents, unless the run itself deleted it), the replicas are identical, and a Discard leaves no trace of the run.
 * After a Revert no two blocks share an id. Item by item (REV12), also with list items and
 * paragraphs in quotes as the items' targets (OP12), every accepted item's text stays and every
 * discarded one's is gone.
 * fast-check prints the seed of a failure; replay with TANDEM_SEED=<seed>.
 */

const seed = process.env.TANDEM_SEED ? Number(process.env.TANDEM_SEED) : undefined;
const runs = process.env.TANDEM_RUNS ? Number(process.env.TANDEM_RUNS) : undefined;
const params = (numRuns: number) => ({ numRuns: runs ?? numRuns, ...(seed === undefined ? {} : { seed }) });

type Kind = 'p' | 'h' | 'code' | 'list' | 'quote';
interface BlockSpec {
  kind: Kind;
  words: string[];
}

const blockSpec: fc.Arbitrary<BlockSpec> = fc.record({
  kind: fc.constantFrom<Kind>('p', 'p', 'h', 'code'),
  words: fc.array(fc.stringMatching(/^[a-e]{1,3}$/), { minLength: 1, maxLength: 3 }),
});

/** Blocks of a document with lists and quotes among them, whose nested blocks a run changes too (OP12). */
const nestedBlockSpec: fc.Arbitrary<BlockSpec> = fc.record({
  kind: fc.constantFrom<Kind>('p', 'h', 'list', 'list', 'quote'),
  words: fc.array(fc.stringMatching(/^[a-e]{1,3}$/), { minLength: 1, maxLength: 3 }),
});

function markdownOf(spec: BlockSpec): string {
  const text = spec.words.join(' ');
  // A list holds one item per word, a quote one paragraph (OP12: both hold blocks with ids).
  if (spec.kind === 'list') return spec.words.map((word) => '- ' + word).join('\n');
  if (spec.kind === 'quote') return '> ' + text;
  if (spec.kind === 'h') return '## ' + text;
  if (spec.kind === 'code') return '```\n' + text + '\n```';
  return text;
}

type Action = 'sameType' | 'otherType' | 'several' | 'delete' | 'insert';
interface OpPlan {
  action: Action;
  at: number;
  /** Which of the instructions pinned to the block the op answers (REV12: several per block). */
  answers: number;
  fresh: BlockSpec[];
}
const opPlan: fc.Arbitrary<OpPlan> = fc.record({
  action: fc.constantFrom<Action>('sameType', 'otherType', 'several', 'delete', 'delete', 'insert'),
  at: fc.nat(),
  answers: fc.nat({ max: 2 }),
  fresh: fc.array(blockSpec, { minLength: 1, maxLength: 2 }),
});

/** A step of the schedule: a person types, an update is delivered, or the run writes a batch. */
type Step = { kind: 'type'; replica: 1 | 2 | 3; at: number; text: string } | { kind: 'deliver'; pick: number } | { kind: 'batch'; ops: OpPlan[] };
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('type' as const), replica: fc.constantFrom(1 as const, 2 as const, 3 as const), at: fc.nat(), text: fc.stringMatching(/^[XYZ]{1,2}$/) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('deliver' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('batch' as const), ops: fc.array(opPlan, { minLength: 1, maxLength: 3 }) }) },
);

/** Updates in flight: each replica's updates, waiting to reach each other replica. */
class Network {
  private readonly queues = new Map<string, Uint8Array[]>();
  constructor(private readonly docs: Y.Doc[], private readonly offline: ReadonlySet<number>) {
    docs.forEach((doc, from) => {
      doc.on('update', (update: Uint8Array, origin: unknown) => {
        if (origin === this) return;
        docs.forEach((_, to) => {
          if (to !== from) this.queue(from, to).push(update);
        });
      });
    });
  }
  private queue(from: number, to: number): Uint8Array[] {
    const key = `${from}>${to}`;
    let queue = this.queues.get(key);
    if (!queue) this.queues.set(key, (queue = []));
    return queue;
  }
  /** Delivers the oldest update of one link chosen by `pick` (links from or to an offline replica wait). */
  deliverOne(pick: number): void {
    const links = [...this.queues.entries()].filter(([key, queue]) => {
      const [from, to] = key.split('>').map(Number);
      return queue.length > 0 && !this.offline.has(from) && !this.offline.has(to);
    });
    if (links.length === 0) return;
    const [key, queue] = links[pick % links.length];
    this.apply(Number(key.split('>')[1]), queue.shift()!);
  }
  /** Everyone back online; every update reaches every replica, in a scrambled order. */
  flush(scramble: number): void {
    for (;;) {
      const links = [...this.queues.entries()].filter(([, queue]) => queue.length > 0);
      if (links.length === 0) return;
      const [key, queue] = links[scramble++ % links.length];
      this.apply(Number(key.split('>')[1]), queue.shift()!);
    }
  }
  /** The server (replica 0) is replaced by `doc`, which holds everything it had. */
  replaceServer(doc: Y.Doc): void {
    this.docs[0] = doc;
    doc.on('update', (update: Uint8Array, origin: unknown) => {
      if (origin === this) return;
      this.docs.forEach((_, to) => {
        if (to !== 0) this.queue(0, to).push(update);
      });
    });
  }
  private apply(to: number, update: Uint8Array): void {
    Y.applyUpdate(this.docs[to], update, this);
  }
}

/** The ops of a batch planned against the server's document as the agent reads it. */
function planOps(server: Y.Doc, plans: OpPlan[], fence: ReadonlySet<string>, answering: (blockId: string, plan: OpPlan) => string = () => 'i1'): Op[] {
  const all = readBlocks(server);
  const views = all.filter((view) => fence.has(view.id));
  const parentOf = new Map(all.map((view) => [view.id, view.parentId]));
  const holding = holdersOfPendingDeletes(server);
  const lineOf = (id: string): string[] => {
    const line: string[] = [];
    for (let at: string | null | undefined = id; at; at = parentOf.get(at)) line.push(at);
    return line;
  };
  const ops: Op[] = [];
  const used = new Set<string>();
  for (const plan of plans) {
    if (views.length === 0) break;
    const view = views[plan.at % views.length];
    // One op per block, and none on a block inside (or around) another the batch names (OP12).
    const line = lineOf(view.id);
    if (line.some((id) => used.has(id)) || [...used].some((id) => lineOf(id).includes(view.id))) continue;
    // A block holding a nested pending delete is replaced once its run is decided (OP12).
    if (plan.action !== 'insert' && plan.action !== 'delete' && holding.has(view.id)) continue;
    used.add(view.id);
    const instructionId = answering(view.id, plan);
    const [first, ...rest] = plan.fresh;
    // The agent keeps what it reads of people's letters: a loss would be the review's doing.
    const seen = view.markdown.match(/[XYZ]/g)?.join('') ?? '';
    const withSeen = (words: string[]) => (seen ? [...words, seen] : words);
    if (plan.action === 'delete' && seen) continue;
    if (plan.action === 'delete') ops.push({ op: 'delete_block', blockId: view.id, expectHash: view.hash, instructionId });
    else if (plan.action === 'insert') ops.push({ op: 'insert_after', blockId: view.id, markdown: plan.fresh.map(markdownOf).join('\n\n'), instructionId });
    else {
      const kind = view.type === 'heading' ? 'h' : view.type === 'code_block' ? 'code' : view.type === 'bullet_list' ? 'list' : view.type === 'blockquote' ? 'quote' : 'p';
      const otherKind: Kind = kind === 'p' ? 'h' : 'p';
      const specs: BlockSpec[] =
        plan.action === 'sameType'
          ? [{ kind, words: withSeen(first.words) }]
          : plan.action === 'otherType'
            ? [{ kind: otherKind, words: withSeen(first.words) }]
            : [{ kind, words: withSeen(first.words) }, ...(rest.length ? rest : [first])];
      ops.push({ op: 'replace_block', blockId: view.id, markdown: specs.map(markdownOf).join('\n\n'), expectHash: view.hash, instructionId });
    }
  }
  return ops;
}

/** The ids of the blocks holding, at any depth, a block a run deleted pending review. */
function holdersOfPendingDeletes(ydoc: Y.Doc): Set<string> {
  const holders = new Set<string>();
  const walk = (node: PMNode, line: string[]) => {
    node.forEach((child) => {
      if (child.attrs.deleting) line.forEach((id) => holders.add(id));
      if (!child.isTextblock && !child.isLeaf) walk(child, typeof child.attrs.id === 'string' ? [...line, child.attrs.id] : line);
    });
  };
  walk(readProseMirrorDoc(ydoc), []);
  return holders;
}

function applierRun(fence: Set<string>, instructions: ReadonlySet<string> = new Set(['i1'])): ApplierRun {
  let count = 0;
  return { runId: 'run', fence, instructions: new Set(instructions), allowedOps: new Set(opKinds), makeId: () => `n${++count}` };
}

/** The client:clock of each character the run inserted under the blocks of `part` that is alive on `ydoc` now. */
function liveRunCharacters(ydoc: Y.Doc, insertions: DeleteSet): string[] {
  const found: string[] = [];
  for (const [client, ranges] of insertions.clients) {
    for (const struct of ydoc.store.clients.get(client) ?? []) {
      if (!(struct instanceof Y.Item) || !(struct.content instanceof Y.ContentString) || !isAlive(struct)) continue;
      for (let i = 0; i < struct.length; i++) {
        const clock = struct.id.clock + i;
        if (ranges.some((range) => range.clock <= clock && clock < range.clock + range.len)) found.push(`${client}:${clock}`);
      }
    }
  }
  return found;
}

function isAlive(item: Y.Item): boolean {
  if (item.deleted) return false;
  for (let parent = item.parent as Y.AbstractType<unknown>; parent?._item; parent = parent._item.parent as Y.AbstractType<unknown>) {
    if (parent._item.deleted) return false;
  }
  return true;
}

/** Whether the character `client:clock` is alive on `ydoc`. */
function characterAlive(ydoc: Y.Doc, key: string): boolean {
  const [client, clock] = key.split(':').map(Number);
  const struct = (ydoc.store.clients.get(client) ?? []).find((each) => each.id.clock <= clock && clock < each.id.clock + each.length);
  return struct instanceof Y.Item && isAlive(struct);
}

/** Types `text` into one of the texts of `ydoc` (any: old, the run's, one it deletes). */
function typeSomewhere(ydoc: Y.Doc, at: number, text: string): number {
  const texts: Y.XmlText[] = [];
  const walk = (node: unknown) => {
    if (node instanceof Y.XmlText) texts.push(node);
    else if (node instanceof Y.XmlElement) node.toArray().forEach(walk);
  };
  docParts(ydoc).content.toArray().forEach(walk);
  if (texts.length === 0) return 0;
  const ytext = texts[at % texts.length];
  ytext.insert(Math.floor(at / texts.length) % (ytext.length + 1), text);
  return text.length;
}

type DeleteSet = Y.UndoManager['undoStack'][number]['deletions'];

/**
 * How many characters people typed are in the text (their Yjs items alive, under live parents)
 * or were deleted by the run itself: deleted by its ops (it read them: on Accept that is its
 * edit, on Discard Yjs brings them back as copies) or in a block it deleted that Accept removes
 * unchanged (`acceptRemoves`, `client:clock`).
 */
function peoplesCharactersIn(ydoc: Y.Doc, runDeleted: DeleteSet, acceptRemoves: ReadonlySet<string>): number {
  let count = 0;
  for (const client of people) {
    for (const struct of ydoc.store.clients.get(client) ?? []) {
      // People only type, so a collected struct of theirs (or a collected item's content) was text.
      const collected = !(struct instanceof Y.Item);
      if (!collected && !(struct.content instanceof Y.ContentString || struct.content instanceof Y.ContentDeleted)) continue;
      let alive = !struct.deleted;
      for (let parent = collected ? null : (struct.parent as Y.AbstractType<unknown>); parent?._item; parent = parent._item.parent as Y.AbstractType<unknown>) {
        if (parent._item.deleted) alive = false;
      }
      for (let i = 0; i < struct.length; i++) {
        const clock = struct.id.clock + i;
        if (alive || Y.isDeleted(runDeleted, Y.createID(client, clock)) || acceptRemoves.has(`${client}:${clock}`)) count++;
      }
    }
  }
  return count;
}

/** Adds `client:clock` of every character under `ytype` to `into`. */
function collectClocks(ytype: { _start: Y.Item | null }, into: Set<string>): void {
  for (let item = ytype._start; item !== null; item = item.right) {
    for (let i = 0; i < item.length; i++) into.add(`${item.id.client}:${item.id.clock + i}`);
    if (item.content instanceof Y.ContentType) collectClocks(item.content.type, into);
  }
}

/** The top-level items of the text among `ds`, found by walking every top-level item. */
/** The blocks of `ds` not inside another of them, found by walking the whole text (deleted items included). */
function walkedInsertedRoots(ydoc: Y.Doc, ds: ReturnType<typeof Y.createDeleteSet>): Y.Item[] {
  const items: Y.Item[] = [];
  const walk = (first: Y.Item | null, top: boolean) => {
    for (let item = first; item !== null; item = item.right) {
      if (Y.isDeleted(ds, item.id)) {
        if (top || (item.content instanceof Y.ContentType && item.content.type instanceof Y.XmlElement)) items.push(item);
        continue;
      }
      if (item.content instanceof Y.ContentType && item.content.type instanceof Y.XmlElement) walk(item.content.type._start, false);
    }
  };
  walk(docParts(ydoc).content._start, true);
  return items;
}

function itemKeys(items: readonly Y.Item[]): string[] {
  return items.map((item) => `${item.id.client}:${item.id.clock}`).sort();
}

/** The Yjs clients of the three people's replicas. */
const people = [2, 3, 4];

function peopleLetters(ydoc: Y.Doc): number {
  const doc = readProseMirrorDoc(ydoc);
  return (doc.textBetween(0, doc.content.size, '\n', '\n').match(/[XYZ]/g) ?? []).length;
}

const baseDoc = (specs: BlockSpec[]): Y.Doc => makeBlocksYDoc(specs.map(markdownOf));

describe('review keeps what people type (fast-check)', () => {
  const keepsTyping = (nested: boolean) => () => {
    fc.assert(
      fc.property(
        fc.array(nested ? nestedBlockSpec : blockSpec, { minLength: 2, maxLength: 5 }),
        fc.array(step, { minLength: 3, maxLength: 25 }),
        fc.constantFrom<'discard' | 'accept'>('discard', 'accept'),
        fc.boolean(),
        fc.nat(),
        (specs, steps, decision, restart, scramble) => {
          const base = baseDoc(specs);
          // With nested blocks, they get their ids as the server gives them on load, and are fenced too.
          if (nested) giveNestedIds(base, serverOrigin);
          const fence = new Set((nested ? readBlocks(base) : readTopBlocks(base)).map((block) => block.id));
          // Replica 0 is the server; replica 3 is offline from the start until the decision.
          const replicas = [replicaOf(base, 1), replicaOf(base, 2), replicaOf(base, 3), replicaOf(base, 4)];
          const network = new Network(replicas, new Set([3]));
          const origin = runOrigin('run');
          let manager = runUndoManager(replicas[0], origin);
          const run = applierRun(fence);
          let typed = 0;
          let batches = 0;
          for (const each of steps) {
            if (each.kind === 'type') {
              const ydoc = replicas[each.replica];
              ydoc.transact(() => (typed += typeSomewhere(ydoc, each.at, each.text)));
            } else if (each.kind === 'deliver') network.deliverOne(each.pick);
            else {
              const server = replicas[0];
              const ops = planOps(server, each.ops, fence);
              if (ops.length === 0) continue;
              manager.stopCapturing();
              const result = applyOps(server, ops, run, origin);
              expect(result.ok, JSON.stringify(result)).toBe(true);
              manager.stopCapturing();
              batches++;
            }
          }
          fc.pre(batches > 0);
          network.flush(scramble);

          if (restart) {
            const saved = saveRunScope(manager);
            const reloaded = new Y.Doc({ gc: true, gcFilter: keepRunDeletions([saved]) });
            Y.applyUpdate(reloaded, Y.encodeStateAsUpdate(replicas[0]));
            replicas[0] = reloaded;
            network.replaceServer(reloaded);
            manager = restoreRunScope(reloaded, runOrigin('run'), saved);
          }
          const server = replicas[0];
          const runDeleted = Y.mergeDeleteSets(manager.undoStack.map((item) => item.deletions));
          const acceptRemoves = new Set<string>();
          for (const { yblock, changed } of pendingDeletes(server, 'run')) if (!changed) collectClocks(yblock, acceptRemoves);
          if (decision === 'discard') {
            // Discard finds the blocks the run inserted through the store: the same as walking the text.
            const insertions = Y.mergeDeleteSets(manager.undoStack.map((item) => item.insertions));
            expect(itemKeys(insertedRoots(server, insertions))).toEqual(itemKeys(walkedInsertedRoots(server, insertions)));
            undoRun(manager);
          } else acceptRunText(server, 'run', serverOrigin);
          network.flush(scramble);

          const text = JSON.stringify(readProseMirrorDoc(server).toJSON());
          for (const ydoc of replicas) {
            expect(peoplesCharactersIn(ydoc, runDeleted, decision === 'accept' ? acceptRemoves : new Set())).toBe(typed);
            // Accept may show a letter twice: in a block people changed, kept, and in the run's copy.
            if (decision === 'discard') expect(peopleLetters(ydoc)).toBe(typed);
            else expect(peopleLetters(ydoc)).toBeGreaterThanOrEqual(typed);
            expect(JSON.stringify(readProseMirrorDoc(ydoc).toJSON())).toBe(text);
          }
          // Either way the review is over: no change mark, no block pending deletion.
          expect(text).not.toContain('"change"');
          expect(text).not.toMatch(/"deleting":"/);
        },
      ),
      params(100),
    );
  };
  it('[OP7][REV6][REV7] keeps every character people type through Discard and Accept, with or without a restart, on every replica', keepsTyping(false), runs === undefined ? 20_000 : 600_000);
  it('[OP12][REV7] keeps every character people type in list items and quotes through Discard and Accept of ops on nested blocks, on every replica', keepsTyping(true), runs === undefined ? 30_000 : 600_000);

  const keepsTypingThroughRevert = (nested: boolean) => () => {
    fc.assert(
      fc.property(
        fc.array(nested ? nestedBlockSpec : blockSpec, { minLength: 2, maxLength: 5 }),
        fc.array(step, { minLength: 3, maxLength: 20 }),
        fc.array(step, { maxLength: 10 }),
        fc.boolean(),
        fc.nat(),
        (specs, steps, later, restart, scramble) => {
          const base = baseDoc(specs);
          if (nested) giveNestedIds(base, serverOrigin);
          const fence = new Set((nested ? readBlocks(base) : readTopBlocks(base)).map((block) => block.id));
          const replicas = [replicaOf(base, 1), replicaOf(base, 2), replicaOf(base, 3), replicaOf(base, 4)];
          const network = new Network(replicas, new Set([3]));
          const origin = runOrigin('run');
          const manager = runUndoManager(replicas[0], origin);
          const run = applierRun(fence);
          let typed = 0;
          let batches = 0;
          const type = (each: Step) => {
            if (each.kind === 'type') {
              const ydoc = replicas[each.replica];
              ydoc.transact(() => (typed += typeSomewhere(ydoc, each.at, each.text)));
            } else if (each.kind === 'deliver') network.deliverOne(each.pick);
          };
          for (const each of steps) {
            if (each.kind !== 'batch') type(each);
            else {
              const ops = planOps(replicas[0], each.ops, fence);
              if (ops.length === 0) continue;
              manager.stopCapturing();
              expect(applyOps(replicas[0], ops, run, origin).ok).toBe(true);
              manager.stopCapturing();
              batches++;
            }
          }
          fc.pre(batches > 0);
          network.flush(scramble);

          const runDeleted = Y.mergeDeleteSets(manager.undoStack.map((item) => item.deletions));
          const acceptRemoves = new Set<string>();
          for (const { yblock, changed } of pendingDeletes(replicas[0], 'run')) if (!changed) collectClocks(yblock, acceptRemoves);
          // As the server does while it accepts: nothing Accept removes is collected.
          replicas[0].gc = false;
          const { removed } = acceptRunText(replicas[0], 'run', serverOrigin);
          replicas[0].gc = true;
          const scope = withDeletions(saveRunScope(manager), removed);
          manager.destroy();
          network.flush(scramble);
          for (const each of later) if (each.kind !== 'batch') type(each);
          network.flush(scramble);

          if (restart) {
            const reloaded = new Y.Doc({ gc: true, gcFilter: keepRunDeletions([scope]) });
            Y.applyUpdate(reloaded, Y.encodeStateAsUpdate(replicas[0]));
            replicas[0] = reloaded;
            network.replaceServer(reloaded);
          }
          applyRevert(replicas[0], planRevert(replicas[0], scope, []), revertOrigin('run'));
          network.flush(scramble);

          const text = JSON.stringify(readProseMirrorDoc(replicas[0]).toJSON());
          for (const ydoc of replicas) {
            expect(peoplesCharactersIn(ydoc, runDeleted, acceptRemoves)).toBe(typed);
            expect(peopleLetters(ydoc)).toBeGreaterThanOrEqual(typed);
            expect(JSON.stringify(readProseMirrorDoc(ydoc).toJSON())).toBe(text);
          }
          expect(text).not.toMatch(/"deleting":"/);
          const ids = (nested ? readBlocks(replicas[0]) : readTopBlocks(replicas[0])).map((block) => block.id);
          expect(new Set(ids).size).toBe(ids.length);
          // With nobody typing, the revert gives back exactly the text the run found.
          if (typed === 0) expect(text).toBe(JSON.stringify(readProseMirrorDoc(base).toJSON()));
        },
      ),
      params(100),
    );
  };
  it('[REV8] keeps every character people type, before and after Accept, when the run is reverted later, with or without a restart', keepsTypingThroughRevert(false), runs === undefined ? 20_000 : 600_000);
  it('[OP12][REV8] the same with ops on list items and the blocks inside lists and quotes', keepsTypingThroughRevert(true), runs === undefined ? 30_000 : 600_000);

  const decidesItemByItem = (nested: boolean) => () => {
    fc.assert(
      fc.property(
        fc.array(nested ? nestedBlockSpec : blockSpec, { minLength: 2, maxLength: 5 }),
        fc.array(step, { minLength: 3, maxLength: 25 }),
        fc.array(fc.record({ decision: fc.constantFrom<'accept' | 'discard'>('accept', 'discard'), typing: fc.array(step, { maxLength: 4 }) }), { minLength: 5, maxLength: 5 }),
        fc.nat(),
        fc.boolean(),
        fc.nat(),
        fc.option(fc.array(step, { maxLength: 8 }), { nil: null }),
        (specs, steps, decisions, order, restart, scramble, revertAfter) => {
          const base = baseDoc(specs);
          if (nested) giveNestedIds(base, serverOrigin);
          // With nested blocks, the targets are where pins land (OP12): each list item, each
          // paragraph in a quote, each other top-level block; never a block around another target.
          const blocks = nested ? pinTargets(base) : readTopBlocks(base);
          const fence = new Set(blocks.map((block) => block.id));
          // Three instructions per target (REV12: pins on different words of one block): target
          // k's are items `ik.0`, `ik.1` and `ik.2`, each writing under a client id of its own
          // (WHO3), which tells what each item wrote whatever the scope says.
          const instructionIds = blocks.flatMap((_, index) => [0, 1, 2].map((answer) => `i${index}.${answer}`));
          const targetOf = new Map(blocks.map((block, index) => [block.id, index]));
          const answering = (blockId: string, plan: OpPlan) => `i${targetOf.get(blockId)}.${plan.answers}`;
          const clientOf = new Map(instructionIds.map((id, index) => [id, 1000 + index]));
          const replicas = [replicaOf(base, 1), replicaOf(base, 2), replicaOf(base, 3), replicaOf(base, 4)];
          const network = new Network(replicas, new Set([3]));
          const origin = runOrigin('run');
          let manager = runUndoManager(replicas[0], origin);
          const run = { ...applierRun(fence, new Set(instructionIds)), writerFor: (id: string) => clientOf.get(id) ?? 1 };
          const changes: Change[] = [];
          let typed = 0;
          const type = (each: Step) => {
            if (each.kind === 'type') {
              const ydoc = replicas[each.replica];
              ydoc.transact(() => (typed += typeSomewhere(ydoc, each.at, each.text)));
            } else if (each.kind === 'deliver') network.deliverOne(each.pick);
          };
          for (const each of steps) {
            if (each.kind !== 'batch') type(each);
            else {
              const ops = planOps(replicas[0], each.ops, fence, answering);
              if (ops.length === 0) continue;
              manager.stopCapturing();
              const from = manager.undoStack.length;
              const result = applyOps(replicas[0], ops, run, origin);
              expect(result.ok, JSON.stringify(result)).toBe(true);
              if (result.ok) changes.push(...result.changes);
              manager.stopCapturing();
              // As the server does (run-text.ts): the batch becomes one part per instruction.
              if (result.ok) tagBatch(manager, from, result.parts);
            }
          }
          fc.pre(changes.length > 0);
          network.flush(scramble);
          if (restart) {
            const saved = saveRunScope(manager);
            const reloaded = new Y.Doc({ gc: true, gcFilter: keepRunDeletions([saved]) });
            Y.applyUpdate(reloaded, Y.encodeStateAsUpdate(replicas[0]));
            replicas[0] = reloaded;
            network.replaceServer(reloaded);
            manager = restoreRunScope(reloaded, runOrigin('run'), saved);
          }
          const server = replicas[0];
          const runDeleted = Y.mergeDeleteSets(manager.undoStack.map((item) => item.deletions));
          // The items with changes, decided in a random order, people typing in between.
          const items = [...new Set(changes.map((change) => change.instructionId))];
          const rotated = items.map((_, index) => items[(index + order) % items.length]);
          const runCharacters = new Map<string, string[]>();
          const acceptRemoves = new Set<string>();
          const decided = new Map<string, 'accept' | 'discard'>();
          for (const [index, id] of rotated.entries()) {
            const { decision, typing } = decisions[index % decisions.length];
            for (const each of typing) type(each);
            // Every update reaches the server before it decides (as in the tests above).
            network.flush(scramble);
            // What the item wrote that is in the text now: its own client's characters.
            runCharacters.set(id, liveRunCharacters(server, managerScope(manager).insertions).filter((key) => key.startsWith(`${clientOf.get(id)}:`)));
            const accepted = new Set([...decided].filter(([, each]) => each === 'accept').map(([each]) => each));
            if (decision === 'discard') undoRunItems(manager, changes, new Set([id]), { runId: 'run', instructionIds: accepted });
            else {
              const only = itemsOfRun(manager, changes, new Set([id]));
              for (const { yblock, changed } of pendingDeletes(server, 'run')) if (!changed && yblock._item && only.owns(yblock._item)) collectClocks(yblock, acceptRemoves);
              server.gc = false;
              const { removed } = acceptRunText(server, 'run', serverOrigin, only);
              server.gc = true;
              keepInScope(manager, removed, new Set([id]));
            }
            decided.set(id, decision);
            // The decision reaches everyone before they type on (typing into a node a decision
            // removed, before hearing of it, is lost whatever the server does).
            network.flush(scramble);
          }

          const text = JSON.stringify(readProseMirrorDoc(server).toJSON());
          for (const ydoc of replicas) {
            expect(peoplesCharactersIn(ydoc, runDeleted, acceptRemoves)).toBe(typed);
            expect(peopleLetters(ydoc)).toBeGreaterThanOrEqual(typed);
            expect(JSON.stringify(readProseMirrorDoc(ydoc).toJSON())).toBe(text);
            for (const [id, decision] of decided) {
              // An accepted item's text stays whole (but for the blocks it deletes); a discarded item's text is gone.
              const alive = (runCharacters.get(id) ?? []).filter((key) => decision === 'discard' || !acceptRemoves.has(key)).map((key) => characterAlive(ydoc, key));
              expect(alive.every((each) => each === (decision === 'accept')), `${id} ${decision}`).toBe(true);
            }
          }
          // Every item is decided: no change mark, no block pending deletion.
          expect(text).not.toContain('"change"');
          expect(text).not.toMatch(/"deleting":"/);
          const ids = (nested ? readBlocks(server) : readTopBlocks(server)).map((block) => block.id);
          expect(new Set(ids).size).toBe(ids.length);

          // REV8 after REV12: Revert of a run decided item by item takes back the accepted items
          // (what is left of the run's scope), people typing before it; their typing stays.
          if (revertAfter === null || ![...decided.values()].includes('accept')) return;
          for (const each of revertAfter) type(each);
          network.flush(scramble);
          applyRevert(server, planRevert(server, saveRunScope(manager), []), revertOrigin('run'));
          network.flush(scramble);
          const reverted = JSON.stringify(readProseMirrorDoc(server).toJSON());
          for (const ydoc of replicas) {
            expect(peoplesCharactersIn(ydoc, runDeleted, acceptRemoves)).toBe(typed);
            expect(JSON.stringify(readProseMirrorDoc(ydoc).toJSON())).toBe(reverted);
            // What the accepted items wrote is gone again.
            for (const [id, decision] of decided) {
              if (decision === 'accept') expect((runCharacters.get(id) ?? []).filter((key) => characterAlive(ydoc, key)), id).toEqual([]);
            }
          }
          const revertedIds = (nested ? readBlocks(server) : readTopBlocks(server)).map((block) => block.id);
          expect(new Set(revertedIds).size).toBe(revertedIds.length);
          // With nobody typing, the revert gives back exactly the text the run found.
          if (typed === 0) expect(reverted).toBe(JSON.stringify(readProseMirrorDoc(base).toJSON()));
        },
      ),
      params(100),
    );
  };
  it('[REV12][REV8] keeps every character people type and exactly the accepted items, through random decisions item by item and a revert after, on every replica', decidesItemByItem(false), runs === undefined ? 30_000 : 600_000);
  it('[OP12][REV12][REV8] the same with list items and paragraphs in quotes as the items’ targets', decidesItemByItem(true), runs === undefined ? 30_000 : 600_000);
});

/** The blocks a pin targets (OP12): list items, the blocks inside quotes, and the other top-level blocks. */
function pinTargets(ydoc: Y.Doc) {
  const blocks = readBlocks(ydoc);
  const typeOf = new Map(blocks.map((block) => [block.id, block.type]));
  return blocks.filter((block) => {
    if (block.type === 'bullet_list' || block.type === 'blockquote') return false;
    if (block.parentId === null || block.type === 'list_item') return true;
    return typeOf.get(block.parentId) === 'blockquote';
  });
}
