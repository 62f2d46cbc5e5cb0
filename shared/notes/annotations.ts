import * as Y from 'yjs';
import { notesParts } from '../model/doc-layout.ts';
import { readKeyedRecords } from '../model/keyed-records.ts';
import { migrateRecord } from '../model/schema-versions.ts';
import { maxQuoteLength } from '../protocol/limits.ts';
import { maxVariants } from '../applier/ops.ts';
import type { Anchor, RelativePositionJSON } from '../model/anchors.ts';

/**
 * Annotation records: comments (to people) and instructions (work orders for an agent), kept in
 * `notesParts(ydoc).annotations` of a document's `<id>/notes` Y.Doc.
 *
 * In Yjs each record is a `Y.Map` under its id, so that concurrent edits of different fields
 * (one person resolves, another edits the text, the server sets the state) all survive:
 *
 *   annotations: Y.Map<id, Y.Map {
 *     id, kind, anchor: {from, to}, blockId, quote, author: {id, name}, createdAt, resolved,
 *     turns: Y.Array<Y.Map {author: {id, name}, text, at}>,
 *     state, runId, fromCommentId            (instructions only)
 *     variants                               (instructions asking for 2 to 4 answers only, VAR1)
 *     discardedChange                        (instructions made by Discard run with a reason only)
 *   }>
 *
 * `anchor` and `author` are plain JSON values, written once. Turns are a Y.Array so that replies
 * added concurrently all survive; each turn is a Y.Map so that an edit of its text is one
 * last-writer-wins field rather than a delete and a re-insert.
 *
 * Every read goes through `parseAnnotation`: a record that does not validate is reported and
 * ignored, never trusted and never a crash.
 */

export type AnnotationKind = 'comment' | 'instruction';
export type InstructionState = 'draft' | 'queued' | 'sent' | 'answered';

export const instructionStates: readonly InstructionState[] = ['draft', 'queued', 'sent', 'answered'];

export interface Author {
  id: string;
  name: string;
}

export interface Turn {
  author: Author;
  text: string;
  /** Milliseconds since the epoch. */
  at: number;
}

interface AnnotationBase {
  id: string;
  anchor: Anchor;
  blockId: string;
  quote: string;
  author: Author;
  createdAt: number;
  /** The first turn is the annotation's own text; the rest are replies. Never empty. */
  turns: Turn[];
  resolved: boolean;
}

export interface Comment extends AnnotationBase {
  kind: 'comment';
}

export interface Instruction extends AnnotationBase {
  kind: 'instruction';
  state: InstructionState;
  runId: string | null;
  fromCommentId: string | null;
  /** VAR1: how many answers the instruction asks for, 2 to 4; absent for one. */
  variants?: number;
  /**
   * On an instruction that Discard run made from the discarder's reason: the change the
   * discarded run had proposed for this text (the agent's Markdown; empty when it proposed
   * deleting the text). Absent on every other instruction; only the server writes it (NOTES6).
   */
  discardedChange?: string;
}

export type Annotation = Comment | Instruction;

export const maxTextLength = 10_000;
export { maxQuoteLength } from '../protocol/limits.ts';
export const maxNameLength = 200;

export type ParseResult = { ok: true; annotation: Annotation } | { ok: false; reason: string };

const idPattern = /^[A-Za-z0-9_-]{1,64}$/;

/** Ids of annotations, blocks and runs: URL-safe, 1 to 64 characters. */
export function isRecordId(value: unknown): value is string {
  return typeof value === 'string' && idPattern.test(value);
}

/** Null when `text` is fit to be a turn's text, else the reason. */
export function checkText(text: unknown): string | null {
  if (typeof text !== 'string') return 'must be a string';
  if (text.trim() === '') return 'must not be empty';
  if (text.length > maxTextLength) return `must be at most ${maxTextLength} characters`;
  return null;
}

/** Null when `author` is `{id, name}` with a non-empty id, else the reason. */
export function checkAuthor(author: unknown): string | null {
  if (!isObject(author)) return 'must be an object {id, name}';
  if (typeof author.id !== 'string' || author.id === '' || author.id.length > maxNameLength) {
    return `id must be a non-empty string of at most ${maxNameLength} characters`;
  }
  if (typeof author.name !== 'string' || author.name.length > maxNameLength) {
    return `name must be a string of at most ${maxNameLength} characters`;
  }
  return null;
}

/** Null when `anchor` is `{from, to}` of relative positions in JSON form, else the reason. */
export function checkAnchor(anchor: unknown): string | null {
  if (!isObject(anchor)) return 'must be an object {from, to}';
  for (const end of ['from', 'to'] as const) {
    const reason = checkRelativePosition(anchor[end]);
    if (reason !== null) return `${end} ${reason}`;
  }
  return null;
}

/**
 * Validates one record, given as a `Y.Map` (as stored) or as plain JSON. A record without `kind`
 * reads as a comment. Fields it does not know are ignored (VER5: a record of a newer schema
 * version is read for the fields this version knows).
 */
export function parseAnnotation(value: unknown): ParseResult {
  const stored = value instanceof Y.AbstractType ? (value.toJSON() as unknown) : value;
  if (!isObject(stored)) return fail('the record is not an object');
  // VER5: an older version is read as the current one; a newer one for the fields known here.
  const record = migrateRecord('annotation', stored)?.record;
  if (!record) return fail('v must be a positive integer');
  const kind = record.kind === undefined ? 'comment' : record.kind;
  if (kind !== 'comment' && kind !== 'instruction') return fail('kind must be "comment" or "instruction"');
  if (!isRecordId(record.id)) return fail('id must be 1 to 64 letters, digits, "_" or "-"');
  const anchorReason = checkAnchor(record.anchor);
  if (anchorReason !== null) return fail(`anchor ${anchorReason}`);
  if (!isRecordId(record.blockId)) return fail('blockId must be 1 to 64 letters, digits, "_" or "-"');
  if (typeof record.quote !== 'string' || record.quote.length > maxQuoteLength) {
    return fail(`quote must be a string of at most ${maxQuoteLength} characters`);
  }
  const authorReason = checkAuthor(record.author);
  if (authorReason !== null) return fail(`author ${authorReason}`);
  if (!isTime(record.createdAt)) return fail('createdAt must be a time in milliseconds');
  if (typeof record.resolved !== 'boolean') return fail('resolved must be a boolean');
  if (!Array.isArray(record.turns) || record.turns.length === 0) return fail('turns must be a non-empty array');
  const turns: Turn[] = [];
  for (const [index, turn] of record.turns.entries()) {
    const parsed = parseTurn(turn);
    if (typeof parsed === 'string') return fail(`turns[${index}] ${parsed}`);
    turns.push(parsed);
  }
  const base: AnnotationBase = {
    id: record.id,
    anchor: copyAnchor(record.anchor as unknown as Anchor),
    blockId: record.blockId,
    quote: record.quote,
    author: { id: (record.author as Author).id, name: (record.author as Author).name },
    createdAt: record.createdAt,
    turns,
    resolved: record.resolved,
  };
  if (kind === 'comment') return { ok: true, annotation: { ...base, kind } };
  if (!instructionStates.includes(record.state as InstructionState)) {
    return fail(`state must be one of ${instructionStates.join(', ')}`);
  }
  if (!(record.runId === null || isRecordId(record.runId))) return fail('runId must be null or an id');
  if (!(record.fromCommentId === null || isRecordId(record.fromCommentId))) {
    return fail('fromCommentId must be null or an id');
  }
  const discarded = record.discardedChange;
  if (discarded !== undefined && (typeof discarded !== 'string' || discarded.length > maxTextLength)) {
    return fail(`discardedChange must be a string of at most ${maxTextLength} characters`);
  }
  const variants = record.variants;
  if (variants !== undefined && !(Number.isInteger(variants) && (variants as number) >= 1 && (variants as number) <= maxVariants)) {
    return fail(`variants must be a whole number from 1 to ${maxVariants}`);
  }
  const instruction: Instruction = {
    ...base,
    kind,
    state: record.state as InstructionState,
    runId: record.runId,
    fromCommentId: record.fromCommentId,
  };
  if (discarded !== undefined) instruction.discardedChange = discarded;
  if (typeof variants === 'number' && variants > 1) instruction.variants = variants;
  return { ok: true, annotation: instruction };
}

/** Every valid annotation of a notes Y.Doc, oldest first, and every invalid record with why. */
export function readAnnotations(notesYdoc: Y.Doc): {
  annotations: Annotation[];
  invalid: { id: string; reason: string }[];
} {
  const { records: annotations, invalid } = readKeyedRecords<'annotation', Annotation>(notesParts(notesYdoc).annotations, parseAnnotation, 'annotation', 'id');
  annotations.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  invalid.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { annotations, invalid };
}

/** One annotation by id: the parsed record, or why it is missing or invalid. */
export function readAnnotation(notesYdoc: Y.Doc, id: string): ParseResult {
  const value = notesParts(notesYdoc).annotations.get(id);
  if (value === undefined) return fail('no annotation has this id');
  const result = parseAnnotation(value);
  if (result.ok && result.annotation.id !== id) return fail('id does not match its key');
  return result;
}

function parseTurn(turn: unknown): Turn | string {
  if (!isObject(turn)) return 'is not an object';
  const authorReason = checkAuthor(turn.author);
  if (authorReason !== null) return `author ${authorReason}`;
  const textReason = checkText(turn.text);
  if (textReason !== null) return `text ${textReason}`;
  if (!isTime(turn.at)) return 'at must be a time in milliseconds';
  const author = turn.author as Author;
  return { author: { id: author.id, name: author.name }, text: turn.text as string, at: turn.at };
}

function checkRelativePosition(value: unknown): string | null {
  if (!isObject(value)) return 'must be a relative position object';
  if (value.item !== undefined && !isId(value.item)) return 'has a malformed item id';
  if (value.type !== undefined && !isId(value.type)) return 'has a malformed type id';
  if (value.tname !== undefined && typeof value.tname !== 'string') return 'has a malformed tname';
  if (value.type === undefined && value.tname === undefined) return 'names no type';
  if (value.assoc !== undefined && !Number.isInteger(value.assoc)) return 'has a malformed assoc';
  return null;
}

function copyAnchor(anchor: Anchor): Anchor {
  return { from: copyPosition(anchor.from), to: copyPosition(anchor.to) };
}

function copyPosition(pos: RelativePositionJSON): RelativePositionJSON {
  const copy: RelativePositionJSON = {};
  if (pos.type !== undefined) copy.type = { client: pos.type.client, clock: pos.type.clock };
  if (pos.tname !== undefined) copy.tname = pos.tname;
  if (pos.item !== undefined) copy.item = { client: pos.item.client, clock: pos.item.clock };
  if (pos.assoc !== undefined) copy.assoc = pos.assoc;
  return copy;
}

function isId(value: unknown): boolean {
  return isObject(value) && isUint(value.client) && isUint(value.clock);
}

function isUint(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}
