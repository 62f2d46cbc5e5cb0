import * as Y from 'yjs';
import { notesParts } from '../model/doc-layout.ts';
import { randomId } from '../model/ids.ts';
import type { Origin } from '../model/origins.ts';
import type { Anchor } from '../model/anchors.ts';
import { maxVariants } from '../applier/ops.ts';
import {
  checkAnchor,
  checkAuthor,
  checkText,
  isRecordId,
  maxQuoteLength,
  maxTextLength,
  parseAnnotation,
  type Annotation,
  type AnnotationKind,
  type Author,
  type InstructionState,
} from './annotations.ts';

/**
 * Writers of annotation records (layout in annotations.ts). Each is a function over the notes
 * Y.Doc that validates first and then writes in one `transact(fn, origin)`; a refused write
 * returns `{ok: false, error}` and changes nothing. Nothing here reads a clock: callers pass
 * `now` (milliseconds). Permissions (who may write what) are the server's business.
 */

export type AnnotationErrorCode =
  | 'INVALID_ID'
  | 'ID_TAKEN'
  | 'INVALID_TEXT'
  | 'INVALID_QUOTE'
  | 'INVALID_AUTHOR'
  | 'INVALID_ANCHOR'
  | 'INVALID_BLOCK'
  | 'NOT_FOUND'
  | 'INVALID_RECORD'
  | 'NOT_A_COMMENT'
  | 'NOT_AN_INSTRUCTION'
  | 'NOT_EDITABLE'
  | 'INVALID_TRANSITION';

export interface AnnotationError {
  code: AnnotationErrorCode;
  message: string;
}

export type WriteResult<T extends object = object> = ({ ok: true } & T) | { ok: false; error: AnnotationError };

export interface NewAnnotation {
  kind: AnnotationKind;
  anchor: Anchor;
  blockId: string;
  quote: string;
  author: Author;
  /** The first turn: the comment, or the instruction's work order. */
  text: string;
  now: number;
  /** Defaults to a fresh random id. */
  id?: string;
  /** Instructions only; `queued` (ready to send) unless given. */
  state?: 'draft' | 'queued';
  /** Instructions only: the comment this instruction was made from. */
  fromCommentId?: string | null;
  /** Instructions only: the change a discarded run proposed here (see `Instruction`). */
  discardedChange?: string;
  /** Instructions only: how many answers to ask for (VAR1), 1 to 4; one unless given. */
  variants?: number;
}

/** Adds a record; returns its id. */
export function createAnnotation(notesYdoc: Y.Doc, input: NewAnnotation, origin: Origin | null = null): WriteResult<{ id: string }> {
  const id = input.id ?? randomId();
  const refusal = refuseNew(notesYdoc, id, input);
  if (refusal) return refusal;
  const record = new Y.Map<unknown>();
  record.set('id', id);
  record.set('kind', input.kind);
  record.set('anchor', plainAnchor(input.anchor));
  record.set('blockId', input.blockId);
  record.set('quote', input.quote);
  record.set('author', { id: input.author.id, name: input.author.name });
  record.set('createdAt', input.now);
  record.set('resolved', false);
  const turns = new Y.Array<Y.Map<unknown>>();
  turns.push([newTurn(input.author, input.text, input.now)]);
  record.set('turns', turns);
  if (input.kind === 'instruction') {
    record.set('state', input.state ?? 'queued');
    record.set('runId', null);
    record.set('fromCommentId', input.fromCommentId ?? null);
    if (input.discardedChange !== undefined) record.set('discardedChange', input.discardedChange);
    if (input.variants !== undefined && input.variants > 1) record.set('variants', input.variants);
  }
  notesYdoc.transact(() => notesParts(notesYdoc).annotations.set(id, record), origin);
  return { ok: true, id };
}

/** Appends a reply. Replies added concurrently on several replicas all survive. */
export function addTurn(
  notesYdoc: Y.Doc,
  id: string,
  turn: { author: Author; text: string; now: number },
  origin: Origin | null = null,
): WriteResult {
  const found = findRecord(notesYdoc, id);
  if (!found.ok) return found;
  const refusal = textRefusal(turn.text) || authorRefusal(turn.author);
  if (refusal) return refusal;
  checkTime(turn.now);
  notesYdoc.transact(() => found.turns.push([newTurn(turn.author, turn.text, turn.now)]), origin);
  return { ok: true };
}

export function setResolved(notesYdoc: Y.Doc, id: string, resolved: boolean, origin: Origin | null = null): WriteResult {
  const found = findRecord(notesYdoc, id);
  if (!found.ok) return found;
  if (found.annotation.resolved !== resolved) notesYdoc.transact(() => found.record.set('resolved', resolved), origin);
  return { ok: true };
}

/** Replaces an instruction's work order (its first turn's text) while it is `draft` or `queued`. */
export function editInstructionText(notesYdoc: Y.Doc, id: string, text: string, origin: Origin | null = null): WriteResult {
  const found = findRecord(notesYdoc, id);
  if (!found.ok) return found;
  const { annotation } = found;
  if (annotation.kind !== 'instruction') return error('NOT_AN_INSTRUCTION', 'Only an instruction has a work order to edit.');
  if (annotation.state !== 'draft' && annotation.state !== 'queued') {
    return error('NOT_EDITABLE', `This instruction is ${annotation.state} and can no longer be edited.`);
  }
  const refusal = textRefusal(text);
  if (refusal) return refusal;
  const first = found.turns.get(0);
  if (!(first instanceof Y.Map)) return error('INVALID_RECORD', 'The first turn of this instruction cannot be edited.');
  if (first.get('text') !== text) notesYdoc.transact(() => first.set('text', text), origin);
  return { ok: true };
}

/** Removes a record, valid or not. */
export function deleteAnnotation(notesYdoc: Y.Doc, id: string, origin: Origin | null = null): WriteResult {
  const annotations = notesParts(notesYdoc).annotations;
  if (!annotations.has(id)) return error('NOT_FOUND', 'No annotation has this id.');
  notesYdoc.transact(() => annotations.delete(id), origin);
  return { ok: true };
}

/**
 * Turns a comment into a new instruction on the same anchor, block and quote, whose work order
 * is the comment's first turn and whose `fromCommentId` names the comment. The comment itself
 * is left untouched. One way only: an instruction is refused.
 */
export function escalateComment(
  notesYdoc: Y.Doc,
  commentId: string,
  author: Author,
  now: number,
  origin: Origin | null = null,
  newId?: string,
): WriteResult<{ id: string }> {
  const found = findRecord(notesYdoc, commentId);
  if (!found.ok) return found;
  const comment = found.annotation;
  if (comment.kind !== 'comment') return error('NOT_A_COMMENT', 'Only a comment can be turned into an instruction.');
  return createAnnotation(
    notesYdoc,
    {
      kind: 'instruction',
      anchor: comment.anchor,
      blockId: comment.blockId,
      quote: comment.quote,
      author,
      text: comment.turns[0].text,
      now,
      id: newId,
      fromCommentId: comment.id,
    },
    origin,
  );
}

const transitions: Record<InstructionState, readonly InstructionState[]> = {
  draft: ['queued'],
  queued: ['draft', 'sent'],
  sent: ['answered', 'queued'],
  answered: [],
};

/**
 * Moves an instruction along `draft ⇄ queued → sent → answered` (and `sent → queued` when its run
 * fails). `runId` names the run for `sent` and `answered` and is null otherwise; a call that
 * breaks that rule throws a RangeError. Setting the state it already has with the same run is a
 * no-op; `answered` must name the run the instruction was sent with.
 */
export function setInstructionState(
  notesYdoc: Y.Doc,
  id: string,
  state: InstructionState,
  runId: string | null,
  origin: Origin | null = null,
): WriteResult {
  const needsRun = state === 'sent' || state === 'answered';
  if (!(state in transitions) || (needsRun ? !isRecordId(runId) : runId !== null)) {
    throw new RangeError(`State ${String(state)} cannot go with run ${String(runId)}`);
  }
  const found = findRecord(notesYdoc, id);
  if (!found.ok) return found;
  const { annotation } = found;
  if (annotation.kind !== 'instruction') return error('NOT_AN_INSTRUCTION', 'Only an instruction has a state.');
  if (annotation.state === state && annotation.runId === runId) return { ok: true };
  if (!transitions[annotation.state].includes(state)) {
    return error('INVALID_TRANSITION', `An instruction that is ${annotation.state} cannot become ${state}.`);
  }
  if (state === 'answered' && annotation.runId !== runId) {
    return error('INVALID_TRANSITION', 'This instruction was not sent with that run.');
  }
  notesYdoc.transact(() => {
    found.record.set('state', state);
    if (annotation.runId !== runId) found.record.set('runId', runId);
  }, origin);
  return { ok: true };
}

/**
 * Writes an instruction's state and run back to what the server holds (NOTES13), whatever they
 * are now: used after an editor's update moved an instruction the server had sent or answered.
 * A new set, made after the update merged, wins over every concurrent one on every replica.
 * Does nothing when the record is gone, unreadable or already right.
 */
export function restoreInstructionState(
  notesYdoc: Y.Doc,
  held: { id: string; state: InstructionState; runId: string },
  origin: Origin | null = null,
): void {
  const found = findRecord(notesYdoc, held.id);
  if (!found.ok || found.annotation.kind !== 'instruction') return;
  const { annotation, record } = found;
  if (annotation.state === held.state && annotation.runId === held.runId) return;
  notesYdoc.transact(() => {
    record.set('state', held.state);
    record.set('runId', held.runId);
  }, origin);
}

/**
 * Re-pins a record, e.g. after `anchorAfterUndo` or when the editor has followed its text into a
 * new block. The quote stays what it was at creation.
 */
export function setAnchor(
  notesYdoc: Y.Doc,
  id: string,
  pin: { anchor: Anchor; blockId: string },
  origin: Origin | null = null,
): WriteResult {
  const found = findRecord(notesYdoc, id);
  if (!found.ok) return found;
  const anchorReason = checkAnchor(pin.anchor);
  if (anchorReason !== null) return error('INVALID_ANCHOR', `The anchor ${anchorReason}.`);
  if (!isRecordId(pin.blockId)) return error('INVALID_BLOCK', 'The block id is malformed.');
  notesYdoc.transact(() => {
    found.record.set('anchor', plainAnchor(pin.anchor));
    if (found.annotation.blockId !== pin.blockId) found.record.set('blockId', pin.blockId);
  }, origin);
  return { ok: true };
}

type Found =
  | { ok: true; record: Y.Map<unknown>; turns: Y.Array<unknown>; annotation: Annotation }
  | { ok: false; error: AnnotationError };

function findRecord(notesYdoc: Y.Doc, id: string): Found {
  const value = notesParts(notesYdoc).annotations.get(id);
  if (value === undefined) return error('NOT_FOUND', 'No annotation has this id.');
  const parsed = parseAnnotation(value);
  if (!parsed.ok) return error('INVALID_RECORD', `This annotation is unreadable: ${parsed.reason}.`);
  const turns = value instanceof Y.Map ? value.get('turns') : undefined;
  if (!(value instanceof Y.Map) || !(turns instanceof Y.Array) || parsed.annotation.id !== id) {
    return error('INVALID_RECORD', 'This annotation is not stored in the form it can be changed in.');
  }
  return { ok: true, record: value as Y.Map<unknown>, turns, annotation: parsed.annotation };
}

function refuseNew(notesYdoc: Y.Doc, id: string, input: NewAnnotation): { ok: false; error: AnnotationError } | null {
  if (input.kind !== 'comment' && input.kind !== 'instruction') throw new RangeError(`Unknown annotation kind ${String(input.kind)}`);
  if (input.state !== undefined && input.state !== 'draft' && input.state !== 'queued') {
    throw new RangeError(`A new instruction is draft or queued, not ${String(input.state)}`);
  }
  checkTime(input.now);
  if (!isRecordId(id)) return error('INVALID_ID', 'An annotation id is 1 to 64 letters, digits, "_" or "-".');
  if (notesParts(notesYdoc).annotations.has(id)) return error('ID_TAKEN', `An annotation with id ${id} exists.`);
  const refusal = textRefusal(input.text) || authorRefusal(input.author);
  if (refusal) return refusal;
  const anchorReason = checkAnchor(input.anchor);
  if (anchorReason !== null) return error('INVALID_ANCHOR', `The anchor ${anchorReason}.`);
  if (!isRecordId(input.blockId)) return error('INVALID_BLOCK', 'The block id is malformed.');
  if (typeof input.quote !== 'string' || input.quote.length > maxQuoteLength) {
    return error('INVALID_QUOTE', `The quote must be a string of at most ${maxQuoteLength} characters.`);
  }
  if (input.fromCommentId != null && !isRecordId(input.fromCommentId)) return error('INVALID_ID', 'fromCommentId is malformed.');
  if (input.variants !== undefined && (input.kind !== 'instruction' || !Number.isInteger(input.variants) || input.variants < 1 || input.variants > maxVariants)) {
    throw new RangeError(`Only an instruction asks for variants, 1 to ${maxVariants}`);
  }
  if (input.discardedChange !== undefined) {
    if (input.kind !== 'instruction') throw new RangeError('Only an instruction records a discarded change');
    if (typeof input.discardedChange !== 'string' || input.discardedChange.length > maxTextLength) {
      return error('INVALID_TEXT', `The discarded change must be a string of at most ${maxTextLength} characters.`);
    }
  }
  return null;
}

function newTurn(author: Author, text: string, at: number): Y.Map<unknown> {
  const turn = new Y.Map<unknown>();
  turn.set('author', { id: author.id, name: author.name });
  turn.set('text', text);
  turn.set('at', at);
  return turn;
}

function plainAnchor(anchor: Anchor): Anchor {
  return JSON.parse(JSON.stringify(anchor)) as Anchor;
}

function textRefusal(text: unknown): { ok: false; error: AnnotationError } | null {
  const reason = checkText(text);
  return reason === null ? null : error('INVALID_TEXT', `The text ${reason}.`);
}

function authorRefusal(author: unknown): { ok: false; error: AnnotationError } | null {
  const reason = checkAuthor(author);
  return reason === null ? null : error('INVALID_AUTHOR', `The author ${reason}.`);
}

function checkTime(now: number): void {
  if (typeof now !== 'number' || !Number.isFinite(now) || now < 0) throw new RangeError(`Not a time: ${String(now)}`);
}

function error(code: AnnotationErrorCode, message: string): { ok: false; error: AnnotationError } {
  return { ok: false, error: { code, message } };
}
