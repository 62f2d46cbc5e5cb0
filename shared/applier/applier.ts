import * as Y from 'yjs';
import type { Mark, Node, NodeType } from 'prosemirror-model';
import { blockHashOf } from '../model/doc-content.ts';
import { docParts } from '../model/doc-layout.ts';
import { blockToMarkdown, markdownToBlocks } from '../model/markdown.ts';
import { schema } from '../model/schema.ts';
import { changeMark } from './applier-marks.ts';
import { newBlock, readBlock, updateBlock } from './applier-write.ts';
import { markPendingDelete, pendingDeleteOf } from './pending-delete.ts';
import { plainParagraph } from '../model/plain-markdown.ts';
import { readPlainParagraph, unmarkedParagraphText, writePlainParagraph } from './plain-block.ts';
import { parseOps, type Op } from './ops.ts';
import type { OpKind } from './op-kinds.ts';
import type { Origin } from '../model/origins.ts';

/**
 * The applier: writes a batch of an agent's ops into a document's text Y.Doc, all or nothing.
 *
 * `applyOps` is a pure function over the Y.Doc (no I/O, no clock, no randomness: new block ids
 * come from `run.makeId`). It validates the whole batch first and, on the first problem, returns
 * it without touching the document. Validation never projects the document (y-prosemirror would
 * delete what its schema cannot build, and the cost would grow with the document): it finds the
 * blocks the batch names by their `id` attribute among the top-level Yjs elements and reads only
 * those, with the writer's non-mutating reader (`readBlock`); content outside them, readable or
 * not, is never read nor written. Otherwise it writes every op as
 * ONE transaction with `origin` (the run's origin object, so that the run's Y.UndoManager
 * captures it; see run-scope.ts), with a minimal diff (applier-write.ts): blocks no op names
 * keep their Yjs nodes untouched, and a replaced block is diffed in place, so anchors and text
 * people type meanwhile survive.
 *
 * Checks, op by op in batch order; the first failing check of the first failing op is the
 * answer (`index` is that op's position, `blockId` the block it names):
 *   1. OP_NOT_ALLOWED  the op's kind is outside the agent's allowlist;
 *   2. INVALID_OP      the op answers no instruction of the run;
 *   3. OUTSIDE_FENCE   the block (for insert_after, the anchor) is no target of the run;
 *   4. STALE_BLOCK     the block is gone, or (replace, delete) it holds content the schema
 *                      cannot build (it is left as it is), or its hash is no longer `expectHash`
 *                      (with a duplicated id, not yet renewed by an editor, the first block
 *                      carrying it is the one meant);
 *   5. INVALID_OP      the Markdown holds no block the schema can keep;
 *   6. INVALID_OP      a second replace or delete of one block, or an insert after a block the
 *                      batch deletes (reported at the later of the two ops).
 *
 * Semantics of a valid batch, read as one edit of the document the agent read:
 * - replace_block: the block becomes the blocks of its Markdown (one or several). The first
 *   keeps the block's id, whatever its type, so the run's fence and later batches still find
 *   it; when its type is unchanged the Yjs node is kept and only the text that differs is
 *   rewritten. A new type means a new Yjs node (Yjs cannot rename one): the old node is not
 *   removed but marked for deletion on Accept (OP7, pending-delete.ts) under a fresh id, and
 *   the new blocks follow it. Further blocks get ids from `makeId`.
 * - insert_after: the blocks of its Markdown follow the block (after all of its replacement
 *   blocks); several inserts after one block keep their batch order.
 * - delete_block: the block is marked for deletion on Accept (OP7); until the run is decided
 *   it stays in the text, and ops treat it as gone.
 * Text the run inserts carries a `change` mark naming the run and the op's instruction (see
 * applier-marks.ts); empty blocks and rules have no text to mark.
 */

export interface ApplierRun {
  runId: string;
  /** Ids of the blocks the run's instructions target: the write fence. */
  fence: ReadonlySet<string>;
  /** Ids of the run's instructions. */
  instructions: ReadonlySet<string>;
  /** Op kinds the agent may send. */
  allowedOps: ReadonlySet<OpKind>;
  /** A fresh, unique block id per call; called only for a valid batch, before writing. */
  makeId: () => string;
}

export type ApplyErrorCode = 'INVALID_OP' | 'OP_NOT_ALLOWED' | 'OUTSIDE_FENCE' | 'STALE_BLOCK';

export interface ApplyError {
  code: ApplyErrorCode;
  /** The position of the refused op in the batch, or -1 when the batch as a whole is wrong. */
  index: number;
  /** The block the refused op names (absent for a malformed batch). */
  blockId?: string;
  message: string;
}

/** What one op did, for the run's review. */
export interface Change {
  /** The block the op names: the replaced or deleted block, or the anchor of an insert. */
  blockId: string;
  instructionId: string;
  op: OpKind;
  /** The block's Markdown before (replace, delete), else null. */
  before: string | null;
  /** The Markdown written (replace, insert; blocks joined by a blank line), else null. */
  after: string | null;
  /** The ids of the blocks now holding `after`, in order (empty for a delete). */
  blockIds: string[];
}

export type ApplyResult = { ok: true; applied: number; changes: Change[] } | { ok: false; error: ApplyError };

/** A valid op, resolved against the current document. */
interface PlannedOp {
  op: Op;
  /** The parsed blocks (replace, insert), ids not yet given. */
  blocks: Node[];
  /** Their Markdown when the op's Markdown is already it (a plain paragraph), else null. */
  markdown: string | null;
  /** The replaced or deleted block as read (null for an insert). */
  read: ReadBlock | null;
}

/** A live block read once per batch: its type, its Markdown and its hash (`blockHash`). */
interface ReadBlock {
  type: NodeType;
  markdown: string;
  hash: string;
  /** Its text when it is a plain paragraph (plain-block.ts), whose Markdown it is; else null. */
  plain: string | null;
}

export function applyOps(ydoc: Y.Doc, ops: readonly Op[], run: ApplierRun, origin: Origin): ApplyResult {
  const parsed = parseOps(ops);
  if (!parsed.ok) return parsed;
  const live = scanBlocks(ydoc, new Set(parsed.ops.map((op) => op.blockId)));
  // OP1: the whole batch is validated before anything is written.
  const planned = validate(live, parsed.ops, run);
  if (!Array.isArray(planned)) return { ok: false, error: planned };

  const { regions, changes } = assignIds(live, planned, run);
  write(ydoc, live, regions, run.runId, origin);
  return { ok: true, applied: planned.length, changes };
}

/** The top-level blocks of the live document, found by id without reading their content. */
interface LiveBlocks {
  /** The first block carrying each (non-empty) id the batch names. */
  found: ReadonlyMap<string, FoundBlock>;
  /** Whether any top-level block carries `id` (a pending delete or a repeated id included). */
  carries(id: string): boolean;
  /** The block carrying `id` as read (null when the schema cannot build it), or undefined when no block carries it. */
  read(id: string): ReadBlock | null | undefined;
}

interface FoundBlock {
  /** Its position among the top-level children (as `toArray` counts them). */
  index: number;
  yblock: Y.XmlElement;
}

/**
 * One pass over the top-level Yjs items that records only the blocks the batch names (`named`):
 * the rest of the document costs one attribute read per block (and no array of it). Every id
 * the document holds is collected only if the batch needs fresh ids.
 */
function scanBlocks(ydoc: Y.Doc, named: ReadonlySet<string>): LiveBlocks {
  const yfragment = docParts(ydoc).content;
  const found = new Map<string, FoundBlock>();
  let index = 0;
  for (let item = yfragment._start; item !== null; item = item.right) {
    if (item.deleted || !item.countable) continue;
    const at = index;
    index += item.length;
    const yblock = item.content instanceof Y.ContentType ? item.content.type : null;
    if (!(yblock instanceof Y.XmlElement)) continue;
    const id = yblock.getAttribute('id');
    // With a duplicated id (a split not yet renamed), the first block is the one that keeps it.
    if (typeof id !== 'string' || id === '' || !named.has(id) || found.has(id)) continue;
    // A block a run deleted (OP7) is gone as far as ops are concerned, until the run is decided.
    if (pendingDeleteOf(yblock) !== null) continue;
    found.set(id, { index: at, yblock });
  }
  let ids: Set<string> | null = null;
  const carries = (id: string): boolean => (ids ??= idsOf(yfragment.toArray())).has(id);
  const cache = new Map<string, ReadBlock | null>();
  const read = (id: string): ReadBlock | null | undefined => {
    const block = found.get(id);
    if (block === undefined) return undefined;
    let read = cache.get(id);
    if (read === undefined) {
      read = readLiveBlock(block.yblock);
      cache.set(id, read);
    }
    return read;
  };
  return { found, carries, read };
}

/** The block as `readBlock` reads it (null when unreadable), through the plain paragraph shortcut where it answers. */
function readLiveBlock(yblock: Y.XmlElement): ReadBlock | null {
  const plain = readPlainParagraph(yblock);
  if (plain !== null) return { type: schema.nodes.paragraph, markdown: plain, hash: blockHashOf('paragraph', plain), plain };
  const node = readBlock(yblock);
  if (node === null) return null;
  const markdown = blockToMarkdown(node);
  return { type: node.type, markdown, hash: blockHashOf(node.type.name, markdown), plain: null };
}

function idsOf(yblocks: readonly unknown[]): Set<string> {
  const ids = new Set<string>();
  for (const yblock of yblocks) {
    const id = yblock instanceof Y.XmlElement ? yblock.getAttribute('id') : undefined;
    if (typeof id === 'string') ids.add(id);
  }
  return ids;
}

/**
 * Writes the regions as one transaction with `origin`, block by block against the live Yjs
 * nodes (see applier-write.ts): a replaced block whose first new block has its type is
 * diffed in place; other new blocks are new nodes; untouched blocks are never visited. (One
 * y-prosemirror `updateYFragment` over the whole document would not do: between the first
 * and the last difference it pairs children greedily by type, so an untouched block between
 * two changed ones could be rewritten with its neighbour's text, taking the typing and
 * anchors inside it along.)
 */
function write(ydoc: Y.Doc, live: LiveBlocks, regions: readonly Region[], runId: string, origin: Origin): void {
  const yfragment = docParts(ydoc).content;
  const located = regions.map((region) => {
    const block = live.found.get(region.blockId);
    // Unreachable: validation found every block the batch names. Checked before writing
    // anything, all or nothing.
    if (block === undefined) throw new Error(`Block ${region.blockId} is not in the live document`);
    return { region, index: block.index, yblock: block.yblock };
  });
  // The last block first, so that the indices of the earlier ones stay valid.
  located.sort((a, b) => b.index - a.index);
  const marks = new Map<string, Mark>();
  const markFor = (instructionId: string): Mark => {
    let mark = marks.get(instructionId);
    if (mark === undefined) marks.set(instructionId, (mark = changeMark(runId, instructionId)));
    return mark;
  };
  // OP3: one transaction with the run's origin, the smallest change block by block.
  ydoc.transact(() => {
    for (const { region, index, yblock } of located) {
      const created: Y.XmlElement[] = [];
      const at = index + 1;
      const replacement = region.replacement;
      if (replacement !== null) {
        const mark = markFor(replacement.instructionId);
        const { blocks, ids } = replacement;
        // Read during validation, in this same call: nothing has written to the block since.
        const old = region.old;
        let from = 0;
        if (blocks.length > 0 && old !== null && blocks[0].type === old.type) {
          const plain = old.plain === null ? null : unmarkedParagraphText(blocks[0]);
          if (plain !== null) writePlainParagraph(yblock, old.plain as string, plain, mark);
          else updateBlock(yblock, withId(blocks[0], ids[0]), mark);
          from = 1;
        } else {
          // OP7: the old block stays, marked, until the run is decided; its id goes to the new block.
          markPendingDelete(yblock, runId, region.blockId, region.hash, region.retiredId ?? undefined);
        }
        for (let i = from; i < blocks.length; i++) created.push(newBlock(withId(blocks[i], ids[i]), mark));
      }
      for (const insert of region.inserts) {
        const mark = markFor(insert.instructionId);
        for (let i = 0; i < insert.blocks.length; i++) created.push(newBlock(withId(insert.blocks[i], insert.ids[i]), mark));
      }
      if (created.length > 0) yfragment.insert(at, created);
    }
  }, origin);
}

function withId(block: Node, id: string): Node {
  return block.type.create({ ...block.attrs, id }, block.content, block.marks);
}

/** OP2: returns the planned ops, or the first problem in the documented order. */
function validate(live: LiveBlocks, ops: readonly Op[], run: ApplierRun): PlannedOp[] | ApplyError {
  const rewritten = new Map<string, number>();
  const deleted = new Map<string, number>();
  const insertedAfter = new Map<string, number>();
  const planned: PlannedOp[] = [];

  for (let index = 0; index < ops.length; index++) {
    const op = ops[index];

    if (!run.allowedOps.has(op.op)) {
      return refusal('OP_NOT_ALLOWED', index, op, `The op at index ${index} is a ${op.op}, which this agent may not send.`);
    }
    if (!run.instructions.has(op.instructionId)) {
      return refusal('INVALID_OP', index, op, `The op at index ${index} answers "${op.instructionId}", which is no instruction of this run.`);
    }
    if (!run.fence.has(op.blockId)) {
      const what = op.op === 'insert_after' ? 'inserts after' : 'changes';
      return refusal('OUTSIDE_FENCE', index, op, `The op at index ${index} ${what} block "${op.blockId}", which no instruction of this run targets.`);
    }
    if (!live.found.has(op.blockId)) {
      return refusal('STALE_BLOCK', index, op, `Block "${op.blockId}" is no longer in the document; read it again.`);
    }
    // An insert only needs its anchor to be there; a replace or delete reads the block.
    const block = op.op === 'insert_after' ? undefined : live.read(op.blockId);
    if (block === null) {
      const what = op.op === 'delete_block' ? 'deleted' : 'replaced';
      return refusal('STALE_BLOCK', index, op, `Block "${op.blockId}" holds content this document's schema cannot build (perhaps written by a newer client); it is left as it is and cannot be ${what} by an op.`);
    }
    if (op.op !== 'insert_after' && block !== undefined && block.hash !== op.expectHash) {
      return refusal('STALE_BLOCK', index, op, `Block "${op.blockId}" has changed since it was read (its hash is no longer ${op.expectHash}); read it again.`);
    }
    let blocks: Node[] = [];
    let markdown: string | null = null;
    if (op.op !== 'delete_block') {
      // A plain paragraph is its own Markdown, and valid as built.
      const plain = plainParagraph(op.markdown);
      const parsedBlocks = plain === null ? parseBlocks(op.markdown) : [plain];
      if (parsedBlocks === null) {
        return refusal('INVALID_OP', index, op, `The Markdown of the op at index ${index} holds no block the document can keep.`);
      }
      blocks = parsedBlocks;
      if (plain !== null) markdown = op.markdown;
    }
    const earlier = rewritten.get(op.blockId);
    if (op.op !== 'insert_after' && earlier !== undefined) {
      return refusal('INVALID_OP', index, op, `The op at index ${index} changes block "${op.blockId}" again; the op at index ${earlier} already replaces or deletes it.`);
    }
    const deletedBy = deleted.get(op.blockId);
    if (op.op === 'insert_after' && deletedBy !== undefined) {
      return refusal('INVALID_OP', index, op, `The op at index ${index} inserts after block "${op.blockId}", which the op at index ${deletedBy} deletes.`);
    }
    const insertBy = insertedAfter.get(op.blockId);
    if (op.op === 'delete_block' && insertBy !== undefined) {
      return refusal('INVALID_OP', index, op, `The op at index ${index} deletes block "${op.blockId}", after which the op at index ${insertBy} inserts.`);
    }
    if (op.op === 'insert_after') {
      if (!insertedAfter.has(op.blockId)) insertedAfter.set(op.blockId, index);
    } else {
      rewritten.set(op.blockId, index);
      if (op.op === 'delete_block') deleted.set(op.blockId, index);
    }
    planned.push({ op, blocks, markdown, read: block ?? null });
  }
  return planned;
}

function refusal(code: ApplyErrorCode, index: number, op: Op, message: string): ApplyError {
  return { code, index, blockId: op.blockId, message };
}

/** The top-level blocks of `markdown`, schema-valid, or null when there are none. */
function parseBlocks(markdown: string): Node[] | null {
  try {
    const blocks = markdownToBlocks(markdown);
    blocks.forEach((block) => block.check());
    return blocks.length > 0 ? blocks : null;
  } catch {
    return null;
  }
}

interface Placed {
  instructionId: string;
  /** The blocks as parsed (their ids not set). */
  blocks: Node[];
  /** The id of each. */
  ids: string[];
}

/** What the batch does at one block of the document: its replacement and what follows it. */
interface Region {
  blockId: string;
  /** The blocks standing for it (none when deleted), or null when it stays. */
  replacement: Placed | null;
  inserts: Placed[];
  /** The hash the batch read of the replaced or deleted block. */
  hash: string;
  /** The replaced or deleted block as the batch read it, else null. */
  old: ReadBlock | null;
  /** A fresh id for the old block when a block of another type takes its id (OP7), else null. */
  retiredId: string | null;
}

/**
 * Gives the planned blocks their ids (the first block of a replacement keeps the replaced id,
 * every other comes from `makeId`) and describes the changes. Throws a RangeError, before
 * anything is written, when `makeId` repeats an id or returns one the document already holds.
 */
function assignIds(live: LiveBlocks, planned: readonly PlannedOp[], run: ApplierRun) {
  const taken = new Set<string>();
  const freshId = (): string => {
    const id = run.makeId();
    if (typeof id !== 'string' || id === '' || live.carries(id) || taken.has(id)) {
      throw new RangeError(`makeId returned ${JSON.stringify(id)}, which is empty or already in use`);
    }
    taken.add(id);
    return id;
  };
  const regions = new Map<string, Region>();
  const changes: Change[] = [];
  for (const { op, blocks, markdown, read } of planned) {
    const ids: string[] = [];
    for (let i = 0; i < blocks.length; i++) ids.push(op.op === 'replace_block' && i === 0 ? op.blockId : freshId());
    const placed = { instructionId: op.instructionId, blocks, ids };
    const region: Region = regions.get(op.blockId) ?? { blockId: op.blockId, replacement: null, inserts: [], hash: '', old: null, retiredId: null };
    regions.set(op.blockId, region);
    if (op.op === 'insert_after') region.inserts.push(placed);
    else {
      region.replacement = placed;
      region.hash = read?.hash ?? '';
      region.old = read;
      if (op.op === 'replace_block' && blocks[0]?.type !== read?.type) region.retiredId = freshId();
    }
    changes.push({
      blockId: op.blockId,
      instructionId: op.instructionId,
      op: op.op,
      before: read?.markdown ?? null,
      after: op.op === 'delete_block' ? null : (markdown ?? blocks.map(blockToMarkdown).join('\n\n')),
      blockIds: ids,
    });
  }
  return { regions: [...regions.values()], changes };
}
