import * as Y from 'yjs';
import type { Role } from './claims.ts';
import { notesParts } from './doc-layout.ts';
import { parseAnnotation, type Annotation, type InstructionState, type ParseResult } from './annotations.ts';

/**
 * Who may change what in a document's `<id>/notes` Y.Doc over Yjs. The server checks every
 * update a client sends against these rules, comparing the records before and after it
 * (server/extensions/notes-guard.ts); the server's own writes (instruction states of a run) do
 * not pass through here. A client may check its own writes with the same function.
 *
 * - [NOTES1] Only editors and commenters write notes.
 * - [NOTES2] Every record added or changed parses (`parseAnnotation`), is stored under its own id
 *   as a Y.Map whose turns are a Y.Array of Y.Maps (the form the writers change), and carries no
 *   field the parser does not know.
 * - [NOTES3] A record's id, kind, author, createdAt, quote, fromCommentId and discardedChange
 *   never change.
 * - [NOTES4] Records and turns are added in the writer's own name: their `author.id` is the
 *   writer's id (the token's `sub`).
 * - [NOTES5] Turns are only appended; a turn keeps its author and time. A turn's text is changed
 *   by its author only, except an instruction's work order (its first turn), which editors may
 *   change while the instruction is draft or queued, and nobody after.
 * - [NOTES6] Writers create instructions draft or queued without a run, and move them between
 *   draft and queued only: `sent`, `answered`, `runId` and `discardedChange` are the server's.
 * - [NOTES7] Commenters create comments, never instructions, and change an instruction only by
 *   appending replies.
 * - [NOTES8] Commenters never set `resolved`; they re-pin, edit or delete only their own
 *   comments; on other people's comments they only append replies.
 *
 * Editors may resolve, re-pin and delete any record, invalid ones included.
 */

export type NotesRule = 'NOTES1' | 'NOTES2' | 'NOTES3' | 'NOTES4' | 'NOTES5' | 'NOTES6' | 'NOTES7' | 'NOTES8';

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
  role: Role;
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
export function checkNotesChange(before: NotesSnapshot, after: NotesSnapshot, writer: NotesWriter): NotesRefusal | null {
  if (writer.role !== 'editor' && writer.role !== 'commenter') {
    return refuse('NOTES1', '', `A ${writer.role} may not change annotations.`);
  }
  const ids = [...new Set([...before.keys(), ...after.keys()])].sort();
  for (const id of ids) {
    const was = before.get(id);
    const now = after.get(id);
    if (was !== undefined && now !== undefined && was.json === now.json) continue;
    const refusal =
      now === undefined
        ? checkDeletion(id, was!, writer)
        : was === undefined || !was.parsed.ok
          ? checkAddition(id, now, writer)
          : checkChange(id, was.parsed.annotation, now, writer);
    if (refusal) return refusal;
  }
  return null;
}

const openStates: readonly InstructionState[] = ['draft', 'queued'];

function checkAddition(id: string, now: NotesEntry, writer: NotesWriter): NotesRefusal | null {
  if (!now.parsed.ok) return refuse('NOTES2', id, `This annotation is malformed: ${now.parsed.reason}.`);
  const record = now.parsed.annotation;
  if (record.author.id !== writer.id || record.turns.some((turn) => turn.author.id !== writer.id)) {
    return refuse('NOTES4', id, 'Annotations and replies are added in your own name only.');
  }
  if (record.kind === 'instruction') {
    if (writer.role !== 'editor') return refuse('NOTES7', id, 'Commenters may not create instructions.');
    if (!openStates.includes(record.state) || record.runId !== null) {
      return refuse('NOTES6', id, 'A new instruction is draft or queued and belongs to no run.');
    }
    if (record.discardedChange !== undefined) return refuse('NOTES6', id, 'Only the server records a discarded change.');
  }
  if (writer.role === 'commenter' && record.resolved) return refuse('NOTES8', id, 'Commenters may not resolve annotations.');
  return null;
}

function checkDeletion(id: string, was: NotesEntry, writer: NotesWriter): NotesRefusal | null {
  if (writer.role === 'editor') return null;
  const record = was.parsed.ok ? was.parsed.annotation : null;
  if (record?.kind === 'comment' && record.author.id === writer.id) return null;
  return refuse(record?.kind === 'instruction' ? 'NOTES7' : 'NOTES8', id, 'Commenters may delete only their own comments.');
}

function checkChange(id: string, a: Annotation, now: NotesEntry, writer: NotesWriter): NotesRefusal | null {
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
    ]);
  if (fixed(a) !== fixed(b)) {
    return refuse('NOTES3', id, 'The id, kind, author, time, quote, origin and discarded change of an annotation never change.');
  }
  const turnsRefusal = checkTurns(id, a, b, writer);
  if (turnsRefusal) return turnsRefusal;
  if (a.kind === 'instruction' && b.kind === 'instruction') {
    if (a.runId !== b.runId) return refuse('NOTES6', id, 'Only the server assigns an instruction to a run.');
    if (a.state !== b.state && !(openStates.includes(a.state) && openStates.includes(b.state))) {
      return refuse('NOTES6', id, `Only the server moves an instruction from ${a.state} to ${b.state}.`);
    }
  }
  if (writer.role === 'editor') return null;

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

/** NOTES4 and NOTES5 for one changed record. */
function checkTurns(id: string, a: Annotation, b: Annotation, writer: NotesWriter): NotesRefusal | null {
  if (b.turns.length < a.turns.length) return refuse('NOTES5', id, 'Replies are never removed.');
  for (const [index, turn] of a.turns.entries()) {
    const next = b.turns[index];
    if (next.author.id !== turn.author.id || next.author.name !== turn.author.name || next.at !== turn.at) {
      return refuse('NOTES5', id, 'A reply keeps its author and time.');
    }
    if (next.text === turn.text) continue;
    const isWorkOrder = index === 0 && a.kind === 'instruction';
    if (isWorkOrder) {
      if (writer.role !== 'editor') return refuse('NOTES7', id, 'Commenters may only reply to an instruction.');
      if (!openStates.includes(a.state)) return refuse('NOTES5', id, `This instruction is ${a.state} and can no longer be edited.`);
    } else if (turn.author.id !== writer.id) {
      return refuse('NOTES5', id, 'Only its author edits a reply.');
    }
  }
  if (b.turns.slice(a.turns.length).some((turn) => turn.author.id !== writer.id)) {
    return refuse('NOTES4', id, 'Replies are added in your own name only.');
  }
  return null;
}

/** parseAnnotation plus what NOTES2 adds: the key, the Yjs form, no unknown fields. */
function strictParse(key: string, value: unknown, plain: unknown, json: string): ParseResult {
  const parsed = parseAnnotation(plain);
  if (!parsed.ok) return parsed;
  if (parsed.annotation.id !== key) return { ok: false, reason: 'id does not match its key' };
  const turns = value instanceof Y.Map ? value.get('turns') : undefined;
  if (!(turns instanceof Y.Array) || !turns.toArray().every((turn) => turn instanceof Y.Map)) {
    return { ok: false, reason: 'it is not stored as a Y.Map whose turns are a Y.Array of Y.Maps' };
  }
  if (canonicalJson(parsed.annotation) !== json) return { ok: false, reason: 'it has fields the record format does not know' };
  return parsed;
}

/** JSON with every object's keys sorted, so that equal values give equal strings. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return '[' + value.map((item) => canonicalJson(item ?? null)).join(',') + ']';
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort();
    return '{' + keys.map((key) => JSON.stringify(key) + ':' + canonicalJson((value as Record<string, unknown>)[key])).join(',') + '}';
  }
  return JSON.stringify(value) ?? 'null';
}

function refuse(rule: NotesRule, annotationId: string, message: string): NotesRefusal {
  return { rule, annotationId, message };
}
