import type * as Y from 'yjs';
import type { Mark, Node } from 'prosemirror-model';
import { blockToMarkdown } from '../model/markdown.ts';
import { parseBlocks, unknownAssetIn, withIds } from './op-blocks.ts';
import { schema } from '../model/schema.ts';
import { changeMark } from './applier-marks.ts';
import { newBlock, updateBlock } from './applier-write.ts';
import { writeHoldingBlock, writtenChildByChild } from './applier-nested-write.ts';
import { markPendingDelete } from './pending-delete.ts';
import { plainParagraph } from '../model/plain-markdown.ts';
import { unmarkedParagraphText, writePlainParagraph } from './plain-block.ts';
import { markdownsOf, parseOps, type Op } from './ops.ts';
import { scanBlocks, type LiveBlocks, type ReadBlock } from './live-blocks.ts';
import type { OpKind } from './op-kinds.ts';
import type { Origin } from '../model/origins.ts';
import { PartRecorder, type ScopePart } from './item-parts.ts';

/**
 * The applier: writes a batch of an agent's ops into a document's text Y.Doc, all or nothing.
 *
 * `applyOps` is a pure function over the Y.Doc (no I/O, no clock, no randomness: new block ids
 * come from `run.makeId`). It validates the whole batch first and, on the first problem, returns
 * it without touching the document. Validation never projects the document (y-prosemirror would
 * delete what its schema cannot build, and the cost would grow with the document): it finds the
 * blocks the batch names by their `id` attribute among the Yjs elements, at any depth (lists,
 * list items and quotes hold blocks with ids of their own, OP12), and reads only those, with the writer's non-mutating reader (`readBlock`); content outside them, readable or
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
 *   3. OUTSIDE_FENCE   the block (for insert_after, the anchor) is no target of the run, nor
 *                      inside one (OP12);
 *   4. STALE_BLOCK     the block is gone, or (replace, delete) it holds content the schema
 *                      cannot build (it is left as it is), or its hash is no longer `expectHash`
 *                      (with a duplicated id, not yet renewed by an editor, the first block
 *                      carrying it is the one meant);
 *   5. INVALID_OP      the Markdown (or one candidate of a propose_variants) holds no block the
 *                      schema can keep;
 *   6. INVALID_OP      a second replace or delete of one block, or an insert after a block the
 *                      batch deletes (reported at the later of the two ops);
 *   7. INVALID_OP      an op on a block inside a block the batch replaces or deletes, or a
 *                      replace or delete of a block inside which the batch changes a block
 *                      (OP12, at the later op);
 *   7b. INVALID_OP     a propose_variants for an instruction another op (of the batch or of an
 *                      earlier one) answers, or an op for an instruction answered with variants;
 *   8. UNKNOWN_ASSET   the Markdown (of any candidate) holds an image whose address is that of an asset
 *                      (`/api/docs/ID/assets/HASH`) not among `run.assets`: one of another
 *                      document, or one never uploaded (IMG4). An agent may not invent one.
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
 * - propose_variants (VAR1): checked as a replace_block of each candidate, written as the
 *   replace_block of the first; its change is a `replace_block` whose `variants` keep every
 *   candidate's Markdown (choose-variant.ts shows another).
 * - delete_block: the block is marked for deletion on Accept (OP7); until the run is decided
 *   it stays in the text, and ops treat it (and every block inside it) as gone.
 * - a block that holds blocks (a list, an item, a quote) replaced by one of its type is written
 *   child by child (applier-nested-write.ts): a nested block the replacement drops is marked
 *   for deletion on Accept, as a top-level block is (OP7), never removed at once.
 * - a nested block is replaced, followed and deleted within its parent. A list item's Markdown is
 *   its content: a replace writes one item holding the op's blocks (keeping the item's id), an
 *   insert after an item one new sibling item holding them (OP12). Blocks inside what an op
 *   writes get ids too: a replaced block's nested blocks keep the ids of those of their type
 *   at the same place, others come from `makeId`.
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
  /** IMG4: the addresses of the assets uploaded into this document; none when absent. */
  assets?: ReadonlySet<string>;
  /**
   * VAR1: the instructions earlier batches of the run answered, each with whether it was by a
   * propose_variants. An instruction answered with variants takes no other op, and a
   * propose_variants answers an instruction nothing else answers. None when absent.
   */
  answered?: ReadonlyMap<string, boolean>;
  /** WHO3: the client id to write instruction `instructionId`'s items under (Yjs reads `ydoc.clientID` per item); the doc's own when absent. */
  writerFor?: (instructionId: string) => number;
}

export type ApplyErrorCode = 'INVALID_OP' | 'OP_NOT_ALLOWED' | 'OUTSIDE_FENCE' | 'STALE_BLOCK' | 'UNKNOWN_ASSET';

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
  /** VAR1: for a propose_variants, every candidate's Markdown (as `after` writes it); absent otherwise. */
  candidates?: string[];
}

/**
 * `parts`: what each instruction's writes inserted and deleted in the batch's transaction (REV12,
 * item-parts.ts), by instruction id.
 */
export type ApplyResult = { ok: true; applied: number; changes: Change[]; parts: Map<string, ScopePart> } | { ok: false; error: ApplyError };

/** A valid op, resolved against the current document. */
interface PlannedOp {
  op: Op;
  /** The parsed blocks (replace, insert), ids not yet given. */
  blocks: Node[];
  /** Their Markdown when the op's Markdown is already it (a plain paragraph), else null. */
  markdown: string | null;
  /** The replaced or deleted block as read (null for an insert). */
  read: ReadBlock | null;
  /** Whether the block is a list item: its Markdown is an item's content (OP12). */
  inItem: boolean;
  /** VAR1: every candidate's Markdown, for a propose_variants; else null. */
  candidates: string[] | null;
}

export function applyOps(ydoc: Y.Doc, ops: readonly Op[], run: ApplierRun, origin: Origin): ApplyResult {
  const parsed = parseOps(ops);
  if (!parsed.ok) return parsed;
  const live = scanBlocks(ydoc, new Set(parsed.ops.map((op) => op.blockId)));
  // OP1: the whole batch is validated before anything is written.
  const planned = validate(live, parsed.ops, run);
  if (!Array.isArray(planned)) return { ok: false, error: planned };

  const { regions, changes } = assignIds(live, planned, run);
  const parts = write(ydoc, live, regions, run, origin);
  return { ok: true, applied: planned.length, changes, parts };
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
function write(ydoc: Y.Doc, live: LiveBlocks, regions: readonly Region[], run: ApplierRun, origin: Origin): Map<string, ScopePart> {
  const { runId, writerFor } = run;
  const ownClient = ydoc.clientID;
  const recorder = new PartRecorder(ydoc);
  // Each instruction's writes under its own client id (WHO3), recorded as its part (REV12).
  const writeAs = (instructionId: string, writes: () => void) => {
    if (writerFor) ydoc.clientID = writerFor(instructionId);
    recorder.during(instructionId, writes);
  };
  const located = regions.map((region) => {
    const block = live.found.get(region.blockId);
    // Unreachable: validation found every block the batch names. Checked before writing
    // anything, all or nothing.
    if (block === undefined) throw new Error(`Block ${region.blockId} is not in the live document`);
    return { region, block };
  });
  // The last block first (in document order), as the batch reads: what one region inserts never moves another's block.
  located.sort((a, b) => b.block.order - a.block.order);
  const marks = new Map<string, Mark>();
  const markFor = (instructionId: string): Mark => {
    let mark = marks.get(instructionId);
    if (mark === undefined) marks.set(instructionId, (mark = changeMark(runId, instructionId)));
    return mark;
  };
  // OP3: one transaction with the run's origin, the smallest change block by block.
  ydoc.transact(() => {
    try {
      for (const { region, block } of located) {
        const { yblock, parent } = block;
        const created: { instructionId: string; yblock: Y.XmlElement }[] = [];
        const replacement = region.replacement;
        if (replacement !== null) {
          const mark = markFor(replacement.instructionId);
          const { blocks } = replacement;
          // Read during validation, in this same call: nothing has written to the block since.
          const old = region.old;
          let from = 0;
          writeAs(replacement.instructionId, () => {
            if (blocks.length > 0 && old !== null && blocks[0].type === old.type) {
              const plain = old.plain === null ? null : unmarkedParagraphText(blocks[0]);
              if (plain !== null) writePlainParagraph(yblock, old.plain as string, plain, mark);
              else if (writtenChildByChild(blocks[0].type.name)) writeHoldingBlock(yblock, blocks[0], mark, runId);
              else updateBlock(yblock, blocks[0], mark);
              from = 1;
            } else {
              // OP7: the old block stays, marked, until the run is decided; its id goes to the new block.
              markPendingDelete(yblock, runId, region.blockId, region.hash, region.retiredId ?? undefined);
            }
          });
          for (let i = from; i < blocks.length; i++) created.push({ instructionId: replacement.instructionId, yblock: newBlock(blocks[i], mark) });
        }
        for (const insert of region.inserts) {
          const mark = markFor(insert.instructionId);
          for (const inserted of insert.blocks) created.push({ instructionId: insert.instructionId, yblock: newBlock(inserted, mark) });
        }
        // A new block's content is integrated when it is inserted: one insert per instruction,
        // each right after the block (or the last block inserted after it), found by its item
        // rather than by counting its position.
        let after = yblock;
        for (const group of byInstruction(created)) {
          writeAs(group.instructionId, () => parent.insertAfter(after, group.yblocks));
          after = group.yblocks.at(-1) ?? after;
        }
      }
    } finally {
      ydoc.clientID = ownClient;
    }
  }, origin);
  return recorder.result();
}

/** The consecutive runs of `created` that answer one instruction, in order. */
function byInstruction(created: readonly { instructionId: string; yblock: Y.XmlElement }[]): { instructionId: string; yblocks: Y.XmlElement[] }[] {
  const groups: { instructionId: string; yblocks: Y.XmlElement[] }[] = [];
  for (const { instructionId, yblock } of created) {
    const last = groups.at(-1);
    if (last?.instructionId === instructionId) last.yblocks.push(yblock);
    else groups.push({ instructionId, yblocks: [yblock] });
  }
  return groups;
}

/** OP2: returns the planned ops, or the first problem in the documented order. */
function validate(live: LiveBlocks, ops: readonly Op[], run: ApplierRun): PlannedOp[] | ApplyError {
  const rewritten = new Map<string, number>();
  const deleted = new Map<string, number>();
  const insertedAfter = new Map<string, number>();
  const named: { index: number; blockId: string; ancestors: readonly string[] }[] = [];
  const variantsFor = new Map<string, boolean>();
  const planned: PlannedOp[] = [];

  for (let index = 0; index < ops.length; index++) {
    const op = ops[index];

    if (!run.allowedOps.has(op.op)) {
      return refusal('OP_NOT_ALLOWED', index, op, `The op at index ${index} is a ${op.op}, which this agent may not send.`);
    }
    if (!run.instructions.has(op.instructionId)) {
      return refusal('INVALID_OP', index, op, `The op at index ${index} answers "${op.instructionId}", which is no instruction of this run.`);
    }
    const found = live.found.get(op.blockId);
    // OP12: an instruction on a block lets the run change the blocks inside it too.
    if (!run.fence.has(op.blockId) && !(found?.ancestors.some((id) => run.fence.has(id)) ?? false)) {
      const what = op.op === 'insert_after' ? 'inserts after' : 'changes';
      return refusal('OUTSIDE_FENCE', index, op, `The op at index ${index} ${what} block "${op.blockId}", which no instruction of this run targets.`);
    }
    if (found === undefined) {
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
    // A plain paragraph is its own Markdown, and valid as built.
    const written = markdownsOf(op).map((text) => {
      const plain = plainParagraph(text);
      return { blocks: plain === null ? parseBlocks(text) : [plain], markdown: plain === null ? null : text };
    });
    const unkeepable = written.findIndex((candidate) => candidate.blocks === null);
    if (unkeepable >= 0) {
      const what = op.op === 'propose_variants' ? `Candidate ${unkeepable} of the op at index ${index}` : `The Markdown of the op at index ${index}`;
      return refusal('INVALID_OP', index, op, `${what} holds no block the document can keep.`);
    }
    const blocks: Node[] = written[0]?.blocks ?? [];
    const markdown = written[0]?.markdown ?? null;
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
    // OP12: a block and a block inside it are not both changed by one batch, when either op
    // replaces or deletes (the outer op would write over, or remove, what the inner one wrote).
    const outer = found.ancestors.find((id) => rewritten.has(id));
    if (outer !== undefined) {
      return refusal('INVALID_OP', index, op, `The op at index ${index} changes block "${op.blockId}", inside block "${outer}", which the op at index ${rewritten.get(outer)} replaces or deletes.`);
    }
    const inner = op.op === 'insert_after' ? undefined : named.find((earlier) => earlier.ancestors.includes(op.blockId));
    if (inner !== undefined) {
      return refusal('INVALID_OP', index, op, `The op at index ${index} replaces or deletes block "${op.blockId}", inside which the op at index ${inner.index} changes block "${inner.blockId}".`);
    }
    const answeredWithVariants = variantsFor.get(op.instructionId) ?? run.answered?.get(op.instructionId);
    if (op.op === 'propose_variants' ? answeredWithVariants !== undefined : answeredWithVariants === true) {
      return refusal('INVALID_OP', index, op, `The op at index ${index} answers "${op.instructionId}", which ${op.op === 'propose_variants' ? 'another op' : 'a propose_variants'} answers already; variants are the one answer of their instruction.`);
    }
    variantsFor.set(op.instructionId, op.op === 'propose_variants');
    const invented = written.map((candidate) => unknownAssetIn(candidate.blocks ?? [], run.assets)).find((address) => address !== null) ?? null;
    if (invented !== null) {
      return refusal('UNKNOWN_ASSET', index, op, `The image at ${invented} in the op at index ${index} is no image uploaded into this document; an image of the document keeps its address, a new one needs an https address.`);
    }
    named.push({ index, blockId: op.blockId, ancestors: found.ancestors });
    if (op.op === 'insert_after') {
      if (!insertedAfter.has(op.blockId)) insertedAfter.set(op.blockId, index);
    } else {
      rewritten.set(op.blockId, index);
      if (op.op === 'delete_block') deleted.set(op.blockId, index);
    }
    const candidates = op.op === 'propose_variants' ? written.map((candidate) => candidate.markdown ?? (candidate.blocks ?? []).map(blockToMarkdown).join('\n\n')) : null;
    planned.push({ op, blocks, markdown, read: block ?? null, inItem: found.yblock.nodeName === 'list_item', candidates });
  }
  return planned;
}

function refusal(code: ApplyErrorCode, index: number, op: Op, message: string): ApplyError {
  return { code, index, blockId: op.blockId, message };
}

interface Placed {
  instructionId: string;
  /** The blocks to write, every one of them and every block inside them with its id. */
  blocks: Node[];
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
 * every other comes from `makeId`; inside a replaced block, a nested block keeps the id of the
 * one of its type it replaces, at the same place, OP12) and describes the changes. An op on a
 * list item writes one item holding the op's blocks. Throws a RangeError, before anything is
 * written, when `makeId` repeats an id or returns one the document already holds.
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
  for (const { op, blocks: parsed, markdown, read, inItem, candidates } of planned) {
    const replacing = op.op === 'replace_block' || op.op === 'propose_variants';
    const old = replacing ? (read?.node ?? null) : null;
    const blocks = inItem && op.op !== 'delete_block'
      ? [withIds(schema.nodes.list_item.create(null, parsed), replacing ? op.blockId : freshId(), old, freshId)]
      : parsed.map((block, i) => (replacing && i === 0 ? withIds(block, op.blockId, old?.type === block.type ? old : null, freshId) : withIds(block, freshId(), null, freshId)));
    const placed = { instructionId: op.instructionId, blocks };
    const region: Region = regions.get(op.blockId) ?? { blockId: op.blockId, replacement: null, inserts: [], hash: '', old: null, retiredId: null };
    regions.set(op.blockId, region);
    if (op.op === 'insert_after') region.inserts.push(placed);
    else {
      region.replacement = placed;
      region.hash = read?.hash ?? '';
      region.old = read;
      if (replacing && blocks[0]?.type !== read?.type) region.retiredId = freshId();
    }
    changes.push({
      blockId: op.blockId,
      instructionId: op.instructionId,
      op: op.op === 'propose_variants' ? 'replace_block' : op.op,
      before: read?.markdown ?? null,
      after: op.op === 'delete_block' ? null : (candidates?.[0] ?? markdown ?? parsed.map(blockToMarkdown).join('\n\n')),
      blockIds: blocks.map((block) => block.attrs.id as string),
      ...(candidates === null ? {} : { candidates }),
    });
  }
  return { regions: [...regions.values()], changes };
}
