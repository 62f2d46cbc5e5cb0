import * as Y from 'yjs';
import type { Role } from '../protocol/claims.ts';
import { may } from '../protocol/permissions.ts';
import { notesParts } from '../model/doc-layout.ts';
import { parseAnnotation, type Annotation, type Author, type InstructionState, type ParseResult } from './annotations.ts';
import canonicalize from 'canonicalize';
import { schemaVersions, statedVersion, versionField } from '../model/schema-versions.ts';

/**
 * Who may change what in a document's `<id>/notes` Y.Doc over Yjs. The server checks every
 * update a client sends against these rules, comparing the records before and after it
 * (server/extensions/notes-guard.ts); the server's own writes (instruction states of a run) do
 * not pass through here. A client may check its own writes with the same function.
 *
 * - [NOTES1] Only editors and commenters write notes.
 * - [NOTES2] Every record added or changed parses (`parseAnnotation`), is stored under its own id
 *   as a Y.Map whose turns are a Y.Array of Y.Maps (the form the writers change) and whose other
 *   values, like a turn's, are plain (no shared type), and carries no field the parser does not know.
 * - [NOTES3] A record's id, kind, author, createdAt, quote, fromCommentId, discardedChange and variants
 *   never change.
 * - [NOTES4] Records and turns are added in the writer's own name: their `author.id` is the
 *   writer's id (the token's `sub`).
 * - [NOTES5] Turns are only appended; a turn keeps its author and time. A turn's text is changed
 *   by its author only, except an instruction's work order (its first turn), which only editors
 *   change. After Send the run keeps the text it copied; a later edit stays on the instruction.
 * - [NOTES6] Writers create instructions draft or queued without a run, and move them between
 *   draft and queued only: `sent`, `answered`, `runId` and `discardedChange` are the server's. An
 *   editor's change to the state or run of an instruction that is already sent or answered is not
 *   refused but undone by the server (NOTES13, `heldInstructions`).
 * - [NOTES7] Commenters create comments, never instructions, and change an instruction only by
 *   appending replies.
 * - [NOTES8] Commenters never set `resolved`; they re-pin, edit or delete only their own
 *   comments; on other people's comments they only append replies.
 * - [NOTES9] Records and turns are added under the writer's own display name: their
 *   `author.name` is the token's `name`.
 * - [NOTES10] A record's `createdAt` and an added turn's `at` lie between `clock.earliest` and
 *   `clock.now + maxClockSkewMs`.
 *
 * Editors may resolve, re-pin and delete any record, invalid ones included. Which role may do
 * each of these is the table of shared/protocol/permissions.ts (`notes.comment`, `notes.instruct`,
 * `notes.resolve`, `notes.moderate`).
 *
 * NOTES11 (nothing outside the annotations map) and NOTES12 (size) are about an update as a
 * whole and are checked where updates are seen, in server/extensions/notes-shadow.ts.
 */

export type NotesRule =
  | 'NOTES1'
  | 'NOTES2'
  | 'NOTES3'
  | 'NOTES4'
  | 'NOTES5'
  | 'NOTES6'
  | 'NOTES7'
  | 'NOTES8'
  | 'NOTES9'
  | 'NOTES10'
  | 'NOTES11'
  | 'NOTES12';

/**
 * How far ahead of the server's clock a new record or turn may be dated (NOTES10). A device whose
 * clock runs further ahead is refused until the server's clock catches up with its times.
 */
export const maxClockSkewMs = 2 * 60_000;

/**
 * How long before its document was created a record may be dated (NOTES10). Refusing a time in
 * the past is final (the record only grows older), so this is loose: it keeps out absurd dates,
 * not comments written offline hours or days ago, nor those of a device whose clock runs late.
 */
export const maxBackdatingMs = 24 * 60 * 60_000;

/** The largest Yjs update one connection may send to `<id>/notes`, in bytes (NOTES12). */
export const maxNotesUpdateBytes = 1024 * 1024;

/** The largest a notes document may grow to through its writers, in bytes of its state (NOTES12). */
export const maxNotesDocBytes = 8 * 1024 * 1024;

/** One record of a notes Y.Doc as the rules see it. */
export interface NotesEntry {
  /** The record's JSON with sorted keys: equal strings, equal records. */
  json: string;
  /** The parsed record, or why it breaks NOTES2. */
  parsed: ParseResult;
}

export type NotesSnapshot = ReadonlyMap<string, NotesEntry>;

export interface NotesWriter {
  /** The principal's id (`sub`), which authors what it writes. */
  id: string;
  /** The principal's display name (the token's `name`), under which it writes. */
  name: string;
  role: Role;
}

/** The times NOTES10 allows, in milliseconds since the epoch. */
export interface NotesClock {
  /** The server's time now. */
  now: number;
  /** The earliest time a new record or turn may carry. */
  earliest: number;
}

/** An instruction the server holds as sent or answered, as it must stay (NOTES6, NOTES13). */
export interface HeldInstruction {
  id: string;
  state: InstructionState;
  runId: string;
}

export interface NotesRefusal {
  rule: NotesRule;
  /** The record that breaks the rule; empty for NOTES1. */
  annotationId: string;
  message: string;
}

/** Every record of a notes Y.Doc by key, or only those under `keys` (absent keys are left out). */
export function snapshotNotes(notesYdoc: Y.Doc, keys?: Iterable<string>): NotesSnapshot {
  const annotations = notesParts(notesYdoc).annotations;
  const snapshot = new Map<string, NotesEntry>();
  for (const key of keys ?? annotations.keys()) {
    if (!annotations.has(key)) continue;
    const value = annotations.get(key);
    const plain: unknown = value instanceof Y.AbstractType ? value.toJSON() : value;
    const json = canonicalJson(plain);
    snapshot.set(key, { json, parsed: strictParse(key, value, plain, json) });
  }
  return snapshot;
}

/**
 * Null when `writer` may turn the records `before` into `after`, else the first rule broken
 * (records visited in id order, so the answer does not depend on the order of the maps).
 */
export function checkNotesChange(
  before: NotesSnapshot,
  after: NotesSnapshot,
  writer: NotesWriter,
  clock: NotesClock,
): NotesRefusal | null {
  if (!may(writer.role, 'notes.comment')) {
    return refuse('NOTES1', '', `A ${writer.role} may not change annotations.`);
  }
  const ids = [...new Set([...before.keys(), ...after.keys()])].sort();
  for (const id of ids) {
    const was = before.get(id);
    const now = after.get(id);
    if (was !== undefined && now !== undefined && was.json === now.json && was.parsed.ok === now.parsed.ok) continue;
    const refusal =
      now === undefined
        ? was && checkDeletion(id, was, writer)
        : was === undefined || !was.parsed.ok
          ? checkAddition(id, now, writer, clock)
          : checkChange(id, was.parsed.annotation, now, writer, clock);
    if (refusal) return refusal;
  }
  return null;
}

/**
 * The instructions that were sent or answered in `before` and whose state or run differs in
 * `after`: an editor's change the rules let through (NOTES6) that the server must write back.
 */
export function heldInstructions(before: NotesSnapshot, after: NotesSnapshot): HeldInstruction[] {
  const held: HeldInstruction[] = [];
  for (const [id, was] of before) {
    const a = was.parsed.ok ? was.parsed.annotation : null;
    const nowEntry = after.get(id);
    const b = nowEntry?.parsed.ok ? nowEntry.parsed.annotation : null;
    if (a?.kind !== 'instruction' || b?.kind !== 'instruction' || openStates.includes(a.state) || a.runId === null) continue;
    if (a.state !== b.state || a.runId !== b.runId) held.push({ id, state: a.state, runId: a.runId });
  }
  return held;
}

const openStates: readonly InstructionState[] = ['draft', 'queued'];

function checkAddition(id: string, now: NotesEntry, writer: NotesWriter, clock: NotesClock): NotesRefusal | null {
  if (!now.parsed.ok) return refuse('NOTES2', id, `This annotation is malformed: ${now.parsed.reason}.`);
  const record = now.parsed.annotation;
  if (record.author.id !== writer.id || record.turns.some((turn) => turn.author.id !== writer.id)) {
    return refuse('NOTES4', id, 'Annotations and replies are added in your own name only.');
  }
  const authors = [record.author, ...record.turns.map((turn) => turn.author)];
  const addedRefusal = checkAdded(id, authors, [record.createdAt, ...record.turns.map((turn) => turn.at)], writer, clock);
  if (addedRefusal) return addedRefusal;
  if (record.kind === 'instruction') {
    if (!may(writer.role, 'notes.instruct')) return refuse('NOTES7', id, 'Commenters may not create instructions.');
    if (!openStates.includes(record.state) || record.runId !== null) {
      return refuse('NOTES6', id, 'A new instruction is draft or queued and belongs to no run.');
    }
    if (record.discardedChange !== undefined) return refuse('NOTES6', id, 'Only the server records a discarded change.');
  }
  if (!may(writer.role, 'notes.resolve') && record.resolved) return refuse('NOTES8', id, 'Commenters may not resolve annotations.');
  return null;
}

function checkDeletion(id: string, was: NotesEntry, writer: NotesWriter): NotesRefusal | null {
  if (may(writer.role, 'notes.moderate')) return null;
  const record = was.parsed.ok ? was.parsed.annotation : null;
  if (record?.kind === 'comment' && record.author.id === writer.id) return null;
  return refuse(record?.kind === 'instruction' ? 'NOTES7' : 'NOTES8', id, 'Commenters may delete only their own comments.');
}

function checkChange(id: string, a: Annotation, now: NotesEntry, writer: NotesWriter, clock: NotesClock): NotesRefusal | null {
  if (!now.parsed.ok) return refuse('NOTES2', id, `This change leaves the annotation malformed: ${now.parsed.reason}.`);
  const b = now.parsed.annotation;
  const fixed = (x: Annotation) =>
    canonicalJson([
      x.id,
      x.kind,
      x.author,
      x.createdAt,
      x.quote,
      x.kind === 'instruction' ? x.fromCommentId : null,
      x.kind === 'instruction' ? (x.discardedChange ?? null) : null,
      x.kind === 'instruction' ? (x.variants ?? 1) : 1,
    ]);
  if (fixed(a) !== fixed(b)) {
    return refuse('NOTES3', id, 'The id, kind, author, time, quote, origin, discarded change and number of variants of an annotation never change.');
  }
  const turnsRefusal = checkTurns(id, a, b, writer, clock);
  if (turnsRefusal) return turnsRefusal;
  const heldByServer = a.kind === 'instruction' && !openStates.includes(a.state) && a.runId !== null;
  if (a.kind === 'instruction' && b.kind === 'instruction' && !(heldByServer && may(writer.role, 'notes.instruct'))) {
    if (a.runId !== b.runId) return refuse('NOTES6', id, 'Only the server assigns an instruction to a run.');
    if (a.state !== b.state && !(openStates.includes(a.state) && openStates.includes(b.state))) {
      return refuse('NOTES6', id, `Only the server moves an instruction from ${a.state} to ${b.state}.`);
    }
  }
  if (may(writer.role, 'notes.moderate')) return null;

  const pinned = canonicalJson([a.anchor, a.blockId]) !== canonicalJson([b.anchor, b.blockId]);
  const edited = a.turns.some((turn, index) => turn.text !== b.turns[index].text);
  if (a.kind === 'instruction') {
    const stateChanged = b.kind === 'instruction' && a.state !== b.state;
    if (pinned || edited || stateChanged || a.resolved !== b.resolved) {
      return refuse('NOTES7', id, 'Commenters may only reply to an instruction.');
    }
    return null;
  }
  if (a.resolved !== b.resolved) return refuse('NOTES8', id, 'Commenters may not resolve annotations.');
  if (pinned && a.author.id !== writer.id) return refuse('NOTES8', id, 'Commenters may re-pin only their own comments.');
  return null;
}

/** NOTES4, NOTES5, NOTES9 and NOTES10 for one changed record. */
function checkTurns(id: string, a: Annotation, b: Annotation, writer: NotesWriter, clock: NotesClock): NotesRefusal | null {
  if (b.turns.length < a.turns.length) return refuse('NOTES5', id, 'Replies are never removed.');
  for (const [index, turn] of a.turns.entries()) {
    const next = b.turns[index];
    if (next.author.id !== turn.author.id || next.author.name !== turn.author.name || next.at !== turn.at) {
      return refuse('NOTES5', id, 'A reply keeps its author and time.');
    }
    if (next.text === turn.text) continue;
    const isWorkOrder = index === 0 && a.kind === 'instruction';
    if (isWorkOrder) {
      if (!may(writer.role, 'notes.instruct')) return refuse('NOTES7', id, 'Commenters may only reply to an instruction.');
    } else if (turn.author.id !== writer.id) {
      return refuse('NOTES5', id, 'Only its author edits a reply.');
    }
  }
  const added = b.turns.slice(a.turns.length);
  if (added.some((turn) => turn.author.id !== writer.id)) {
    return refuse('NOTES4', id, 'Replies are added in your own name only.');
  }
  return checkAdded(id, added.map((turn) => turn.author), added.map((turn) => turn.at), writer, clock);
}

/** NOTES9 and NOTES10 for the authors and times of what a writer adds. */
function checkAdded(id: string, authors: Author[], times: number[], writer: NotesWriter, clock: NotesClock): NotesRefusal | null {
  if (authors.some((author) => author.name !== writer.name)) {
    return refuse('NOTES9', id, 'Annotations and replies are added under the name your token gives.');
  }
  if (times.some((time) => time > clock.now + maxClockSkewMs)) {
    return refuse('NOTES10', id, 'Annotations and replies may not be dated in the future; check this device’s clock.');
  }
  if (times.some((time) => time < clock.earliest)) {
    return refuse('NOTES10', id, 'Annotations and replies may not be dated before their document existed.');
  }
  return null;
}

/** parseAnnotation plus what NOTES2 adds: the key, the Yjs form, no unknown fields (but in a record of a newer schema version, VER5). */
function strictParse(key: string, value: unknown, plain: unknown, json: string): ParseResult {
  const parsed = parseAnnotation(plain);
  if (!parsed.ok) return parsed;
  if (parsed.annotation.id !== key) return { ok: false, reason: 'id does not match its key' };
  const turns = value instanceof Y.Map ? value.get('turns') : undefined;
  if (!(turns instanceof Y.Array) || !turns.toArray().every((turn) => turn instanceof Y.Map && holdsPlainValues(turn))) {
    return { ok: false, reason: 'it is not stored as a Y.Map whose turns are a Y.Array of Y.Maps' };
  }
  // A shared type in a field reads as plain JSON but can carry what JSON does not show (a
  // Y.Text's formatting attributes and embeds): every other field is a plain value.
  if (!holdsPlainValues(value as Y.Map<unknown>, 'turns')) return { ok: false, reason: 'a field other than turns is a shared type' };
  // VER5: a record of a newer schema version may carry fields this version does not know; it is
  // judged on those it knows, and the rest are kept (refusing them would refuse the newer
  // build's replica again on every reconnect). A current record states its version or none.
  const version = statedVersion(plain as Record<string, unknown>);
  if (version !== null && version > schemaVersions.annotation) return parsed;
  const stated = version === schemaVersions.annotation && versionField in (plain as object) ? { [versionField]: version } : {};
  if (canonicalJson({ ...parsed.annotation, ...stated }) !== json) return { ok: false, reason: 'it has fields the record format does not know' };
  return parsed;
}

/** Whether every value of `map`, but the one under `except`, is a plain value rather than a shared type. */
function holdsPlainValues(map: Y.Map<unknown>, except?: string): boolean {
  for (const [key, value] of map.entries()) if (key !== except && value instanceof Y.AbstractType) return false;
  return true;
}

/**
 * JSON with every object's keys sorted (RFC 8785, by `canonicalize`), so that equal values give
 * equal strings; `undefined` reads as null.
 */
export function canonicalJson(value: unknown): string {
  return canonicalize(value) ?? 'null';
}

function refuse(rule: NotesRule, annotationId: string, message: string): NotesRefusal {
  return { rule, annotationId, message };
}
