import { readTopBlocks } from '../helpers/applier-fixture.ts';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as Y from 'yjs';
import { Fragment, type Node } from 'prosemirror-model';
import { applyOps, type ApplierRun } from '../../shared/applier/applier.ts';
import { clearChangeMarks } from '../../shared/applier/applier-marks.ts';
import { readProseMirrorDoc, writeInitialContent, withoutPendingDeletes } from '../../shared/model/doc-content.ts';
import { docParts } from '../../shared/model/doc-layout.ts';
import { markdownToBlocks, withoutChangeMarks } from '../../shared/model/markdown.ts';
import { opKinds } from '../../shared/applier/op-kinds.ts';
import type { Op } from '../../shared/applier/ops.ts';
import { importOrigin, runOrigin, serverOrigin } from '../../shared/model/origins.ts';
import { runUndoManager, undoRun } from '../../shared/applier/run-scope.ts';
import { schema } from '../../shared/model/schema.ts';
import { makeBlocksYDoc, replicaOf } from '../helpers/doc-builder.ts';

/*
 * Properties of the applier over random documents, random batches and random concurrent human
 * edits. fast-check prints the seed and the shrunk counterexample of a failure; replay with
 * TANDEM_SEED=<seed> (and fc's `path`) or fc.assert(..., {seed, path}).
 *
 * The run writes lowercase letters a–e; people type X, Y, Z. People may edit any block the run
 * does not replace or delete, and may type (not erase) inside a replaced text block whose type
 * the run keeps (the Yjs node stays). Typing inside blocks the run deletes or re-creates, and
 * inside the run's new blocks, is the subject of run-review-properties.test.ts.
 */

const seed = process.env.TANDEM_SEED ? Number(process.env.TANDEM_SEED) : undefined;
/** TANDEM_RUNS=n runs each property n times (a longer hunt than the suite's few seconds). */
const runs = process.env.TANDEM_RUNS ? Number(process.env.TANDEM_RUNS) : undefined;
const params = (numRuns: number) => ({ numRuns: runs ?? numRuns, ...(seed === undefined ? {} : { seed }) });
const timeout = runs === undefined ? 8_000 : 600_000;

type Kind = 'p' | 'h' | 'list' | 'code';
interface BlockSpec {
  kind: Kind;
  words: string[];
}

const word = fc
  .tuple(fc.stringMatching(/^[a-e]{1,3}$/), fc.constantFrom('', '', '', '**', '*', '`'))
  .map(([letters, mark]) => mark + letters + mark);
const blockSpec: fc.Arbitrary<BlockSpec> = fc.record({
  kind: fc.constantFrom<Kind>('p', 'p', 'h', 'list', 'code'),
  words: fc.array(word, { minLength: 1, maxLength: 4 }),
});

function specMarkdown(spec: BlockSpec): string {
  const text = spec.words.join(' ');
  if (spec.kind === 'h') return '## ' + text;
  if (spec.kind === 'list') return spec.words.map((w) => '- ' + w).join('\n');
  if (spec.kind === 'code') return '```\n' + text + '\n```';
  return text;
}

/** A document of `specs`, block ids b0, b1…, written by client 100. */
const baseDoc = (specs: BlockSpec[]): Y.Doc => makeBlocksYDoc(specs.map(specMarkdown));

type Action = 'none' | 'fence' | 'replace' | 'delete' | 'insert' | 'replaceInsert';
type Mode = 'tweak' | 'same' | 'other' | 'multi';
interface BlockPlan {
  action: Action;
  mode: Mode;
  fresh: BlockSpec[];
  at: number;
  instruction: 'i1' | 'i2';
}

const blockPlan: fc.Arbitrary<BlockPlan> = fc.record({
  action: fc.constantFrom<Action>('none', 'fence', 'replace', 'replace', 'delete', 'insert', 'replaceInsert'),
  mode: fc.constantFrom<Mode>('tweak', 'tweak', 'same', 'other', 'multi'),
  fresh: fc.array(blockSpec, { minLength: 1, maxLength: 2 }),
  at: fc.nat(),
  instruction: fc.constantFrom('i1' as const, 'i2' as const),
});

/** The replacement Markdown of `old` under `plan`, and whether its first block keeps the type. */
function replacement(old: BlockSpec, plan: BlockPlan): { markdown: string; sameKind: boolean } {
  const [first, ...rest] = plan.fresh;
  if (plan.mode === 'tweak') {
    const words = [...old.words];
    words.splice(plan.at % words.length, plan.at % 2, first.words[0]);
    return { markdown: specMarkdown({ kind: old.kind, words }), sameKind: true };
  }
  if (plan.mode === 'same') return { markdown: specMarkdown({ kind: old.kind, words: first.words }), sameKind: true };
  if (plan.mode === 'other') return { markdown: specMarkdown(first), sameKind: first.kind === old.kind };
  const extra = rest.length > 0 ? rest : [{ kind: 'p' as const, words: first.words }];
  return { markdown: [{ kind: old.kind, words: first.words }, ...extra].map(specMarkdown).join('\n\n'), sameKind: true };
}

interface Batch {
  ops: Op[];
  fence: Set<string>;
  /** Blocks the run replaces or deletes. */
  changed: Set<string>;
  /** Replaced text blocks whose Yjs node the run keeps: people may type in them. */
  typable: Set<string>;
}

function makeBatch(specs: BlockSpec[], plans: BlockPlan[], base: Y.Doc): Batch {
  const views = readTopBlocks(base);
  const batch: Batch = { ops: [], fence: new Set(), changed: new Set(), typable: new Set() };
  specs.forEach((spec, i) => {
    const plan = plans[i % plans.length];
    const { id, hash } = views[i];
    if (plan.action === 'none') return;
    batch.fence.add(id);
    const instructionId = plan.instruction;
    if (plan.action === 'replace' || plan.action === 'replaceInsert') {
      const { markdown, sameKind } = replacement(spec, plan);
      batch.ops.push({ op: 'replace_block', blockId: id, markdown, expectHash: hash, instructionId });
      batch.changed.add(id);
      if (sameKind && spec.kind !== 'list') batch.typable.add(id);
    }
    if (plan.action === 'delete') {
      batch.ops.push({ op: 'delete_block', blockId: id, expectHash: hash, instructionId });
      batch.changed.add(id);
    }
    if (plan.action === 'insert' || plan.action === 'replaceInsert') {
      batch.ops.push({ op: 'insert_after', blockId: id, markdown: plan.fresh.map(specMarkdown).join('\n\n'), instructionId });
    }
  });
  return batch;
}

function runOf(batch: Batch, runId: string): ApplierRun {
  let count = 0;
  return {
    runId,
    fence: batch.fence,
    instructions: new Set(['i1', 'i2']),
    allowedOps: new Set(opKinds),
    makeId: () => `n${++count}`,
  };
}

type HumanEdit =
  | { kind: 'type'; at: number; offset: number; text: string }
  | { kind: 'erase'; at: number; offset: number; length: number }
  | { kind: 'paragraph'; at: number; text: string }
  | { kind: 'drop'; at: number };

const humanText = fc.stringMatching(/^[XYZ]{1,3}$/);
const humanEdit: fc.Arbitrary<HumanEdit> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('type' as const), at: fc.nat(), offset: fc.nat(), text: humanText }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('erase' as const), at: fc.nat(), offset: fc.nat(), length: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('paragraph' as const), at: fc.nat(), text: humanText }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }) },
);

/** The XmlTexts inside the top-level blocks of `ydoc` that `allowed` accepts (by block id). */
function textsIn(ydoc: Y.Doc, allowed: (id: string) => boolean): Y.XmlText[] {
  const found: Y.XmlText[] = [];
  const walk = (node: Y.XmlElement | Y.XmlText) => {
    if (node instanceof Y.XmlText) found.push(node);
    else node.toArray().forEach((child) => walk(child as Y.XmlElement | Y.XmlText));
  };
  for (const block of docParts(ydoc).content.toArray()) {
    if (block instanceof Y.XmlElement && allowed(String(block.getAttribute('id')))) walk(block);
  }
  return found;
}

/** One person's edit on their replica, steered clear of what the run replaces or deletes. */
function applyHumanEdit(ydoc: Y.Doc, edit: HumanEdit, batch: Batch, newId: string): void {
  const content = docParts(ydoc).content;
  const kept = (id: string) => !batch.changed.has(id);
  ydoc.transact(() => {
    if (edit.kind === 'type' || edit.kind === 'erase') {
      const texts = textsIn(ydoc, edit.kind === 'type' ? (id) => kept(id) || batch.typable.has(id) : kept);
      if (texts.length === 0) return;
      const ytext = texts[edit.at % texts.length];
      const offset = edit.offset % (ytext.length + 1);
      if (edit.kind === 'type') ytext.insert(offset, edit.text);
      else ytext.delete(offset, Math.min(edit.length, ytext.length - offset));
    } else if (edit.kind === 'paragraph') {
      const paragraph = new Y.XmlElement('paragraph');
      paragraph.setAttribute('id', newId);
      paragraph.insert(0, [new Y.XmlText(edit.text)]);
      content.insert(edit.at % (content.length + 1), [paragraph]);
    } else {
      const droppable = content.toArray().flatMap((block, i) => (block instanceof Y.XmlElement && kept(String(block.getAttribute('id'))) ? [i] : []));
      if (droppable.length > 0) content.delete(droppable[edit.at % droppable.length], 1);
    }
  });
}

/**
 * Types `text` on `ydoc` into a Y.XmlText that was not created by `runClient` (so it outlives
 * a Discard), at any offset: also between characters the run inserted.
 */
function typeIntoOldText(ydoc: Y.Doc, runClient: number, at: number, text: string): void {
  const found: Y.XmlText[] = [];
  const walk = (node: Y.XmlElement | Y.XmlText) => {
    if (node._item?.id.client === runClient) return;
    if (node instanceof Y.XmlText) found.push(node);
    else node.toArray().forEach((child) => walk(child as Y.XmlElement | Y.XmlText));
  };
  docParts(ydoc).content.toArray().forEach((block) => walk(block as Y.XmlElement));
  if (found.length === 0) return;
  const ytext = found[at % found.length];
  ydoc.transact(() => ytext.insert(Math.floor(at / found.length) % (ytext.length + 1), text));
}

function json(ydoc: Y.Doc): unknown {
  return readProseMirrorDoc(ydoc).toJSON();
}

function uppercase(doc: Node): string {
  return [...doc.textBetween(0, doc.content.size, '\n', '\n')].filter((c) => /[XYZ]/.test(c)).sort().join('');
}

/** The document without the Q that a person typed after the run arrived. */
function withoutQ(node: Node): Node {
  const children: Node[] = [];
  node.forEach((child) => {
    if (!child.isText) children.push(withoutQ(child));
    else if (child.text!.replace(/Q/g, '') !== '') children.push(schema.text(child.text!.replace(/Q/g, ''), child.marks));
  });
  return node.copy(Fragment.fromArray(children));
}

function countQ(ydoc: Y.Doc): number {
  const doc = readProseMirrorDoc(ydoc);
  return (doc.textBetween(0, doc.content.size, '\n', '\n').match(/Q/g) ?? []).length;
}

function changeMarkCount(doc: Node): number {
  let count = 0;
  doc.descendants((node) => {
    if (node.isText && node.marks.some((m) => m.type.name === 'change')) count++;
  });
  return count;
}

const docSpecs = fc.array(blockSpec, { minLength: 2, maxLength: 5 });
const humanEdits = fc.array(humanEdit, { maxLength: 5 });

describe('applier properties (fast-check)', () => {
  it('Discard leaves exactly the human edits and Accept both, on every replica', () => {
    fc.assert(
      fc.property(
        docSpecs,
        fc.array(blockPlan, { minLength: 1, maxLength: 5 }),
        humanEdits,
        humanEdits,
        fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
        fc.array(fc.nat(), { maxLength: 3 }),
        (specs, plans, editsB, editsC, order, lateTyping) => {
          const base = baseDoc(specs);
          const batch = makeBatch(specs, plans, base);
          fc.pre(batch.ops.length > 0);
          const baseVector = Y.encodeStateVector(base);
          const server = replicaOf(base, 1);
          const people = [replicaOf(base, 2), replicaOf(base, 3)];

          const origin = runOrigin('run');
          const um = runUndoManager(server, origin);
          um.stopCapturing();
          const result = applyOps(server, batch.ops, runOf(batch, 'run'), origin);
          expect(result.ok, JSON.stringify(result)).toBe(true);
          um.stopCapturing();
          if (!result.ok) return;

          [editsB, editsC].forEach((edits, p) => edits.forEach((edit, i) => applyHumanEdit(people[p], edit, batch, `h${p}x${i}`)));
          const runUpdate = Y.encodeStateAsUpdate(server, baseVector);
          const humanUpdates = people.map((person) => Y.encodeStateAsUpdate(person, baseVector));

          // Without the run: the same human updates on the base document.
          const reference = replicaOf(base, 9);
          humanUpdates.forEach((update) => Y.applyUpdate(reference, update));
          const expected = json(reference);

          // Random delivery order, then every replica holds everything.
          const deliver = (target: Y.Doc, updates: Uint8Array[], flip: boolean) =>
            (flip ? [...updates].reverse() : updates).forEach((update) => Y.applyUpdate(target, update));
          deliver(server, humanUpdates, order[0]);
          deliver(people[0], [runUpdate, humanUpdates[1]], order[1]);
          deliver(people[1], [humanUpdates[0], runUpdate], order[2]);
          const replicas = [server, ...people];
          const merged = json(server);
          for (const other of people) expect(json(other)).toEqual(merged);

          // Accept: the human edits and the run's text, side by side.
          const mergedDoc = readProseMirrorDoc(server);
          const referenceDoc = readProseMirrorDoc(reference);
          expect(uppercase(mergedDoc)).toBe(uppercase(referenceDoc));
          const mergedById = new Map<string, Node>();
          mergedDoc.forEach((block) => mergedById.set(block.attrs.id, block));
          referenceDoc.forEach((block) => {
            if (!batch.changed.has(block.attrs.id)) expect(mergedById.get(block.attrs.id)?.toJSON()).toEqual(block.toJSON());
          });
          for (const [k, change] of result.changes.entries()) {
            const op = batch.ops[k];
            if (op.op === 'delete_block' || op.op === 'propose_variants') continue;
            const written = markdownToBlocks(op.markdown);
            change.blockIds.forEach((id, i) => {
              const block = mergedById.get(id);
              expect(block, `block ${id} of the run`).toBeDefined();
              // Nested blocks the run dropped stay, pending deletion, until the run is decided (OP12).
              expect(withoutPendingDeletes(block!).textContent.replace(/[XYZ]/g, '')).toBe(written[i].textContent);
            });
          }
          const accepted = replicaOf(server, 8);
          clearChangeMarks(accepted, 'run', serverOrigin);
          const acceptedDoc = readProseMirrorDoc(accepted);
          expect(changeMarkCount(acceptedDoc)).toBe(0);
          expect(acceptedDoc.toJSON()).toEqual(withoutChangeMarks(mergedDoc).toJSON());

          // Discard: the server undoes the run; every replica ends as if it never ran.
          const beforeUndo = Y.encodeStateVector(server);
          undoRun(um);
          const undoUpdate = Y.encodeStateAsUpdate(server, beforeUndo);
          people.forEach((person) => Y.applyUpdate(person, undoUpdate));
          for (const r of replicas) expect(json(r)).toEqual(expected);
          expect(changeMarkCount(readProseMirrorDoc(server))).toBe(0);

          // Once more with a person typing after the run arrived, also inside its new words:
          // what they typed outlives the Discard, the rest is as if the run never ran.
          if (lateTyping.length === 0) return;
          const [late, lateServer] = [replicaOf(base, 4), replicaOf(base, 5)];
          const lateOrigin = runOrigin('run');
          const lateUm = runUndoManager(lateServer, lateOrigin);
          expect(applyOps(lateServer, batch.ops, runOf(batch, 'run'), lateOrigin).ok).toBe(true);
          lateUm.stopCapturing();
          for (const r of [late, lateServer]) humanUpdates.forEach((update) => Y.applyUpdate(r, update));
          Y.applyUpdate(late, Y.encodeStateAsUpdate(lateServer, Y.encodeStateVector(late)));
          const beforeTyping = Y.encodeStateVector(late);
          lateTyping.forEach((at) => typeIntoOldText(late, 5, at, 'Q'));
          const typed = countQ(late);
          const lateVector = Y.encodeStateVector(lateServer);
          undoRun(lateUm);
          Y.applyUpdate(lateServer, Y.encodeStateAsUpdate(late, beforeTyping));
          Y.applyUpdate(late, Y.encodeStateAsUpdate(lateServer, lateVector));
          for (const r of [late, lateServer]) {
            expect(countQ(r)).toBe(typed);
            expect(withoutQ(readProseMirrorDoc(r)).toJSON()).toEqual(expected);
          }
          expect(json(late)).toEqual(json(lateServer));
        },
      ),
      params(40),
    );
  }, timeout);

  it('a refused batch leaves the document byte-identical', () => {
    type Fault = 'kind' | 'instruction' | 'fence' | 'gone' | 'hash' | 'markdown' | 'twice' | 'insertDeleted';
    const fault = fc.constantFrom<Fault>('kind', 'instruction', 'fence', 'gone', 'hash', 'markdown', 'twice', 'insertDeleted');
    fc.assert(
      fc.property(docSpecs, fc.array(blockPlan, { minLength: 1, maxLength: 5 }), fault, fc.nat(), (specs, plans, kind, at) => {
        const base = baseDoc(specs);
        const batch = makeBatch(specs, plans, base);
        const views = readTopBlocks(base);
        const target = views[at % views.length];
        const run = runOf(batch, 'run');
        let made = 0;
        run.makeId = () => `n${++made}`;
        const ops = [...batch.ops];
        const position = ops.length === 0 ? 0 : at % (ops.length + 1);
        const instructionId = 'i1';
        let allowedOps = run.allowedOps;
        if (kind === 'kind') {
          ops.splice(position, 0, { op: 'delete_block', blockId: target.id, expectHash: target.hash, instructionId });
          allowedOps = new Set(['replace_block', 'insert_after']);
        } else if (kind === 'instruction') {
          ops.splice(position, 0, { op: 'insert_after', blockId: target.id, markdown: 'x', instructionId: 'nope' });
        } else if (kind === 'fence') {
          ops.splice(position, 0, { op: 'insert_after', blockId: 'elsewhere', markdown: 'x', instructionId });
        } else if (kind === 'gone') {
          run.fence = new Set([...run.fence, 'gone']);
          ops.splice(position, 0, { op: 'insert_after', blockId: 'gone', markdown: 'x', instructionId });
        } else if (kind === 'hash') {
          run.fence = new Set([...run.fence, target.id]);
          ops.splice(position, 0, { op: 'delete_block', blockId: target.id, expectHash: 'not-the-hash', instructionId });
        } else if (kind === 'markdown') {
          run.fence = new Set([...run.fence, target.id]);
          ops.splice(position, 0, { op: 'insert_after', blockId: target.id, markdown: '\n\n', instructionId });
        } else {
          run.fence = new Set([...run.fence, target.id]);
          const del: Op = { op: 'delete_block', blockId: target.id, expectHash: target.hash, instructionId };
          const second: Op = kind === 'twice' ? del : { op: 'insert_after', blockId: target.id, markdown: 'x', instructionId };
          ops.push(del, second);
        }
        const ydoc = replicaOf(base, 1);
        const um = runUndoManager(ydoc, runOrigin('run'));
        const update = Y.encodeStateAsUpdate(ydoc);
        const vector = Y.encodeStateVector(ydoc);
        const result = applyOps(ydoc, ops, { ...run, allowedOps }, runOrigin('run'));
        expect(result.ok).toBe(false);
        expect(Y.encodeStateAsUpdate(ydoc)).toEqual(update);
        expect(Y.encodeStateVector(ydoc)).toEqual(vector);
        expect(made).toBe(0);
        expect(um.undoStack).toHaveLength(0);
      }),
      params(200),
    );
  }, timeout);

  it('a valid batch writes what the ops say, block by block, and marks exactly the text it inserts', () => {
    fc.assert(
      fc.property(docSpecs, fc.array(blockPlan, { minLength: 1, maxLength: 5 }), (specs, plans) => {
        const base = baseDoc(specs);
        const batch = makeBatch(specs, plans, base);
        fc.pre(batch.ops.length > 0);
        const expected: [string, string][] = [];
        const views = readTopBlocks(base);
        const run = runOf(batch, 'run');
        let count = 0;
        const ids = () => `n${++count}`;
        for (const view of views) {
          const replace = batch.ops.find((op) => op.blockId === view.id && op.op !== 'insert_after');
          if (replace === undefined) expected.push([view.id, view.markdown]);
          else if (replace.op === 'replace_block') {
            markdownToBlocks(replace.markdown).forEach((block, i) => expected.push([i === 0 ? view.id : '?', readBlocksOf(block)]));
          }
          for (const op of batch.ops) {
            if (op.op === 'insert_after' && op.blockId === view.id) markdownToBlocks(op.markdown).forEach((block) => expected.push(['?', readBlocksOf(block)]));
          }
        }
        const ydoc = replicaOf(base, 1);
        const result = applyOps(ydoc, batch.ops, { ...run, makeId: ids }, runOrigin('run'));
        expect(result.ok).toBe(true);
        const actual = readTopBlocks(ydoc).map((b) => [b.id, b.markdown]);
        expect(actual.map(([id, text], i) => [expected[i]?.[0] === '?' ? '?' : id, text])).toEqual(expected);
        expect(new Set(actual.map(([id]) => id)).size).toBe(actual.length);
        expectMarksOnRunText(ydoc, 1);
      }),
      params(200),
    );
  }, timeout);
});

/**
 * Every character written by client `runClient` carries a change mark and no other does: the
 * marks cost no format change on text the run kept.
 */
function expectMarksOnRunText(ydoc: Y.Doc, runClient: number): void {
  const walk = (node: Y.XmlElement | Y.XmlText) => {
    if (node instanceof Y.XmlElement) return node.toArray().forEach((child) => walk(child as Y.XmlElement | Y.XmlText));
    let change: unknown = null;
    for (let item = node._start; item !== null; item = item.right) {
      if (item.deleted) continue;
      if (item.content instanceof Y.ContentFormat && item.content.key === 'change') change = item.content.value;
      if (item.content instanceof Y.ContentString) {
        expect(change !== null, `"${item.content.str}" by client ${item.id.client}`).toBe(item.id.client === runClient);
      }
    }
  };
  docParts(ydoc).content.toArray().forEach((block) => walk(block as Y.XmlElement));
}

function readBlocksOf(block: Node): string {
  const ydoc = new Y.Doc();
  writeInitialContent(ydoc, schema.nodes.doc.create(null, block), importOrigin);
  return readTopBlocks(ydoc)[0].markdown;
}
