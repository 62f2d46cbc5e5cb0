import * as Y from 'yjs';
import { isDocId, runsParts } from '../model/doc-layout.ts';
import { readKeyedRecords } from '../model/keyed-records.ts';
import { checkAuthor, isRecordId, type Author } from '../notes/annotations.ts';
import { isOpKind, type OpKind } from '../applier/op-kinds.ts';
import { isPageOpKind, type PageOpKind } from '../page/page-ops.ts';
import { runStates, type RunState } from './run-state-names.ts';
import { migrateRecord } from '../model/schema-versions.ts';
import { maxVariants } from '../applier/ops.ts';

/**
 * Run records: what `GET /api/runs/:runId` answers and what the server mirrors, as the same
 * plain JSON value, under the run's id in `runsParts(ydoc).runs` of a document's read-only
 * `<id>/runs` Y.Doc. Only the server writes them; every reader goes through `parseRunRecord`.
 *
 *   {runId, docId, state,
 *    items: [{instructionId, blockId, instruction, quote, currentText, drifted, outcome, reason, decision,
 *             variantsWanted, variants: [{index, markdown}], chosen}],
 *    changes: [{op, blockId, instructionId, before, after, note?, variants?}], createdAt, createdBy: {id, name},
 *    updatedAt, summary, error, claimedBy: {id, name} | null, lease: {expiresAt} | null,
 *    decidedBy: {id, name} | null, agent: {name, model} | null, activity: [{at, text}],
 *    usage: {inputTokens, outputTokens, cachedInputTokens} | null}
 *
 * Times are ISO 8601 strings, as elsewhere in the HTTP API. `claimedBy` names the agent that
 * holds (claimed) or held (review, accepted, discarded, failed) the run's claim; `lease` is set
 * only while the run is claimed. `decidedBy` names the editor who accepted or discarded it.
 * `agent`, `activity` and `usage` are what the agent holding the claim told of its work (MODEL8).
 * Records written before these fields existed read as null (`drifted` as false, `activity` as [],
 * an item's `decision` and `chosen` as null, `variantsWanted` as 1, `variants` as []).
 */

export { runStates, outstandingRunStates, decidedRunStates, type RunState } from './run-state-names.ts';

/**
 * What became of one instruction: `pending` until the agent answers it (and again after its
 * claim is given back); `changed` once a batch answering it was applied; `refused` when the
 * agent completed the run refusing it; `unchanged` when the agent completed the run without
 * changing anything for it or refusing it.
 */
export const itemOutcomes = ['pending', 'changed', 'refused', 'unchanged'] as const;
export type ItemOutcome = (typeof itemOutcomes)[number];

/** REV12: how an editor decided one item of a run in review; null until decided. */
export const itemDecisions = ['accepted', 'discarded'] as const;
export type ItemDecision = (typeof itemDecisions)[number];

/** One instruction of a run, copied when the run was sent. */
export interface RunItem {
  instructionId: string;
  blockId: string;
  /** The instruction's work order at send time. */
  instruction: string;
  /** The instruction's quote: its target text as it was when the instruction was pinned. */
  quote: string;
  /** The text its anchors covered at send time (as a quote); null when it was deleted. */
  currentText: string | null;
  /** The target text changed between pinning and Send (RUN5): `currentText` is not `quote`. */
  drifted: boolean;
  outcome: ItemOutcome;
  /** Why the agent refused, or what it says about its change; null when it said nothing. */
  reason: string | null;
  /** REV12: accepted or discarded on its own or with its run; null while undecided. */
  decision: ItemDecision | null;
  /** VAR1: how many answers the instruction asked for (1 to 4). */
  variantsWanted: number;
  /** VAR1: the candidates the agent proposed for it (none without a `propose_variants`). */
  variants: Variant[];
  /** VAR2: the index of the candidate the text shows; null without candidates. */
  chosen: number | null;
}

/** One candidate answer of an item (VAR1), its Markdown as the applier wrote or would write it. */
export interface Variant {
  index: number;
  markdown: string;
}

/** What a replacement with variants keeps (VAR1): every candidate, the one shown, and the blocks holding it. */
export interface ChangeVariants {
  candidates: string[];
  chosen: number;
  /** The ids of the blocks now holding the candidate shown, in order. */
  blockIds: string[];
}

/** One change the applier made for a run, in order; `before`/`after` are block Markdown. */
export interface RunChange {
  /** A block op, or a page op (PAGE7: then `blockId` is the element's id, `before`/`after` its HTML). */
  op: OpKind | PageOpKind;
  blockId: string;
  instructionId: string;
  before: string | null;
  after: string | null;
  /**
   * Why the change was not applied, when it was not: set by Accept for a delete or replacement
   * of a block that people changed meanwhile, which is kept (REV6). Absent otherwise.
   */
  note?: string;
  /** VAR1: on the replacement a `propose_variants` made (`after` is the candidate shown). Absent otherwise. */
  variants?: ChangeVariants;
}

/** A change of a reverted run that the revert left as it is (REV8), and why. */
export interface NotReverted {
  blockId: string;
  instructionId: string;
  /** `rewritten`: the run's text there was changed since; `removed`: its block was deleted since. */
  reason: 'rewritten' | 'removed';
}

export interface RunRecord {
  runId: string;
  docId: string;
  state: RunState;
  items: RunItem[];
  changes: RunChange[];
  createdAt: string;
  createdBy: Author;
  updatedAt: string;
  summary: string | null;
  error: string | null;
  /** The agent holding or last holding the run's claim. */
  claimedBy: Author | null;
  /** While claimed: when the claim runs out unless the agent renews it. */
  lease: { expiresAt: string } | null;
  /** The editor who accepted or discarded the run. */
  decidedBy: Author | null;
  /** An accepted run whose changes were taken back later (REV8); the run stays `accepted`. */
  reverted: { at: string; by: Author; notReverted: NotReverted[] } | null;
  /** The agent holding or last holding the claim, by name, and the model it said it runs (MODEL8). */
  agent: { name: string; model: string | null } | null;
  /** The agent's last activity lines, oldest first (MODEL8). */
  activity: { at: string; text: string }[];
  /** The tokens the run's model calls used, as the agent reported them; null before any report. */
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number } | null;
}

export type RunParseResult = { ok: true; record: RunRecord } | { ok: false; reason: string };

export function isRunState(value: unknown): value is RunState {
  return typeof value === 'string' && (runStates as readonly string[]).includes(value);
}

/** Validates one record given as plain JSON (or as a Yjs type holding it). Unknown fields are dropped, whatever its schema version (VER5). */
export function parseRunRecord(value: unknown): RunParseResult {
  const stored = value instanceof Y.AbstractType ? (value.toJSON() as unknown) : value;
  if (!isObject(stored)) return fail('the record is not an object');
  // VER5: an older version is read as the current one; a newer one for the fields known here.
  const record = migrateRecord('run', stored)?.record;
  if (!record) return fail('v must be a positive integer');
  if (!isRecordId(record.runId)) return fail('runId must be an id');
  if (!isDocId(record.docId)) return fail('docId must be a document id');
  if (!isRunState(record.state)) return fail(`state must be one of ${runStates.join(', ')}`);
  if (!Array.isArray(record.items)) return fail('items must be an array');
  if (!Array.isArray(record.changes)) return fail('changes must be an array');
  if (!isIsoTime(record.createdAt)) return fail('createdAt must be an ISO time');
  if (!isIsoTime(record.updatedAt)) return fail('updatedAt must be an ISO time');
  const authorReason = checkAuthor(record.createdBy);
  if (authorReason !== null) return fail(`createdBy ${authorReason}`);
  if (!isNullableString(record.summary ?? null)) return fail('summary must be a string or null');
  if (!isNullableString(record.error)) return fail('error must be a string or null');
  const claimedBy = record.claimedBy ?? null;
  if (claimedBy !== null) {
    const claimantReason = checkAuthor(claimedBy);
    if (claimantReason !== null) return fail(`claimedBy ${claimantReason}`);
  }
  const decidedBy = record.decidedBy ?? null;
  if (decidedBy !== null) {
    const deciderReason = checkAuthor(decidedBy);
    if (deciderReason !== null) return fail(`decidedBy ${deciderReason}`);
  }
  const reverted = parseReverted(record.reverted ?? null);
  if (typeof reverted === 'string') return fail(`reverted ${reverted}`);
  const agent = parseAgent(record.agent ?? null);
  if (typeof agent === 'string') return fail(`agent ${agent}`);
  const activity = parseActivity(record.activity ?? []);
  if (typeof activity === 'string') return fail(`activity ${activity}`);
  const usage = parseUsage(record.usage ?? null);
  if (typeof usage === 'string') return fail(`usage ${usage}`);
  const lease = record.lease ?? null;
  if (lease !== null && !(isObject(lease) && isIsoTime(lease.expiresAt))) return fail('lease must be {expiresAt} with an ISO time, or null');
  const items: RunItem[] = [];
  for (const [index, item] of record.items.entries()) {
    const parsed = parseItem(item);
    if (typeof parsed === 'string') return fail(`items[${index}] ${parsed}`);
    items.push(parsed);
  }
  const changes: RunChange[] = [];
  for (const [index, change] of record.changes.entries()) {
    const parsed = parseChange(change);
    if (typeof parsed === 'string') return fail(`changes[${index}] ${parsed}`);
    changes.push(parsed);
  }
  const createdBy = record.createdBy as Author;
  return {
    ok: true,
    record: {
      runId: record.runId,
      docId: record.docId,
      state: record.state,
      items,
      changes,
      createdAt: record.createdAt,
      createdBy: { id: createdBy.id, name: createdBy.name },
      updatedAt: record.updatedAt,
      summary: (record.summary ?? null) as string | null,
      error: record.error as string | null,
      claimedBy: claimedBy === null ? null : { id: (claimedBy as Author).id, name: (claimedBy as Author).name },
      lease: lease === null ? null : { expiresAt: (lease as { expiresAt: string }).expiresAt },
      decidedBy: decidedBy === null ? null : { id: (decidedBy as Author).id, name: (decidedBy as Author).name },
      reverted,
      agent,
      activity,
      usage,
    },
  };
}

function parseAgent(value: unknown): RunRecord['agent'] | string {
  if (value === null) return null;
  if (!isObject(value) || typeof value.name !== 'string' || !isNullableString(value.model ?? null)) return 'must be {name, model} or null';
  return { name: value.name, model: (value.model ?? null) as string | null };
}

function parseActivity(value: unknown): RunRecord['activity'] | string {
  if (!Array.isArray(value)) return 'must be an array';
  const lines: RunRecord['activity'] = [];
  for (const line of value) {
    if (!isObject(line) || !isIsoTime(line.at) || typeof line.text !== 'string') return 'has a line that is not {at, text}';
    lines.push({ at: line.at, text: line.text });
  }
  return lines;
}

function parseUsage(value: unknown): RunRecord['usage'] | string {
  if (value === null) return null;
  const counts = ['inputTokens', 'outputTokens', 'cachedInputTokens'] as const;
  if (!isObject(value) || !counts.every((key) => Number.isSafeInteger(value[key]) && (value[key] as number) >= 0)) {
    return 'must be {inputTokens, outputTokens, cachedInputTokens} of whole numbers, or null';
  }
  return { inputTokens: value.inputTokens as number, outputTokens: value.outputTokens as number, cachedInputTokens: value.cachedInputTokens as number };
}

/** Every valid record of a runs Y.Doc, newest first, and every invalid one with why. */
export function readRunRecords(runsYdoc: Y.Doc): { runs: RunRecord[]; invalid: { id: string; reason: string }[] } {
  const { records: runs, invalid } = readKeyedRecords<'record', RunRecord>(runsParts(runsYdoc).runs, parseRunRecord, 'record', 'runId');
  runs.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.runId < b.runId ? 1 : -1));
  return { runs, invalid };
}

function parseItem(item: unknown): RunItem | string {
  if (!isObject(item)) return 'is not an object';
  if (!isRecordId(item.instructionId)) return 'instructionId must be an id';
  if (!isRecordId(item.blockId)) return 'blockId must be an id';
  if (typeof item.instruction !== 'string') return 'instruction must be a string';
  if (typeof item.quote !== 'string') return 'quote must be a string';
  const currentText = item.currentText ?? null;
  if (!isNullableString(currentText)) return 'currentText must be a string or null';
  const drifted = item.drifted ?? false;
  if (typeof drifted !== 'boolean') return 'drifted must be a boolean';
  if (!(itemOutcomes as readonly unknown[]).includes(item.outcome)) return `outcome must be one of ${itemOutcomes.join(', ')}`;
  if (!isNullableString(item.reason)) return 'reason must be a string or null';
  const decision = item.decision ?? null;
  if (decision !== null && !(itemDecisions as readonly unknown[]).includes(decision)) return `decision must be null or one of ${itemDecisions.join(', ')}`;
  const variantsWanted = item.variantsWanted ?? 1;
  if (!Number.isInteger(variantsWanted) || (variantsWanted as number) < 1 || (variantsWanted as number) > maxVariants) return `variantsWanted must be an integer from 1 to ${maxVariants}`;
  const variants = item.variants ?? [];
  if (!Array.isArray(variants) || !variants.every((variant, index) => isObject(variant) && variant.index === index && typeof variant.markdown === 'string')) {
    return 'variants must be a list of {index, markdown} in order';
  }
  const chosen = item.chosen ?? null;
  if (chosen !== null && !(Number.isInteger(chosen) && (chosen as number) >= 0 && (chosen as number) < variants.length)) return 'chosen must be null or the index of a variant';
  return {
    instructionId: item.instructionId,
    blockId: item.blockId,
    instruction: item.instruction,
    quote: item.quote,
    currentText,
    drifted,
    outcome: item.outcome as ItemOutcome,
    reason: item.reason,
    decision: decision as ItemDecision | null,
    variantsWanted: variantsWanted as number,
    variants: (variants as Variant[]).map((variant) => ({ index: variant.index, markdown: variant.markdown })),
    chosen: chosen as number | null,
  };
}

function parseChange(change: unknown): RunChange | string {
  if (!isObject(change)) return 'is not an object';
  if (!isOpKind(change.op) && !isPageOpKind(change.op)) return 'op must be an op kind';
  if (!isRecordId(change.blockId)) return 'blockId must be an id';
  if (!isRecordId(change.instructionId)) return 'instructionId must be an id';
  if (!isNullableString(change.before)) return 'before must be a string or null';
  if (!isNullableString(change.after)) return 'after must be a string or null';
  if (change.note !== undefined && typeof change.note !== 'string') return 'note must be a string when present';
  const parsed: RunChange = { op: change.op, blockId: change.blockId, instructionId: change.instructionId, before: change.before, after: change.after };
  if (typeof change.note === 'string') parsed.note = change.note;
  if (change.variants !== undefined) {
    const variants = parseChangeVariants(change.variants);
    if (variants === null) return 'variants must be {candidates, chosen, blockIds} when present';
    parsed.variants = variants;
  }
  return parsed;
}

/** A change's variants (VAR1) from untrusted JSON (the mirror, the store's column), or null. */
export function parseChangeVariants(value: unknown): ChangeVariants | null {
  if (!isObject(value)) return null;
  const { candidates, chosen, blockIds } = value;
  if (!Array.isArray(candidates) || candidates.length < 2 || candidates.length > maxVariants || !candidates.every((text) => typeof text === 'string')) return null;
  if (!Number.isInteger(chosen) || (chosen as number) < 0 || (chosen as number) >= candidates.length) return null;
  if (!Array.isArray(blockIds) || !blockIds.every((id) => typeof id === 'string')) return null;
  return { candidates: [...(candidates as string[])], chosen: chosen as number, blockIds: [...(blockIds as string[])] };
}

function parseReverted(value: unknown): RunRecord['reverted'] | string {
  if (value === null) return null;
  if (!isObject(value) || !isIsoTime(value.at)) return 'must be {at, by, notReverted} with an ISO time, or null';
  const byReason = checkAuthor(value.by);
  if (byReason !== null) return `by ${byReason}`;
  if (!Array.isArray(value.notReverted)) return 'notReverted must be an array';
  const notReverted: NotReverted[] = [];
  for (const entry of value.notReverted) {
    if (!isObject(entry) || typeof entry.blockId !== 'string' || typeof entry.instructionId !== 'string') return 'notReverted has an entry without ids';
    if (entry.reason !== 'rewritten' && entry.reason !== 'removed') return 'notReverted has an entry with an unknown reason';
    notReverted.push({ blockId: entry.blockId, instructionId: entry.instructionId, reason: entry.reason });
  }
  const by = value.by as Author;
  return { at: value.at, by: { id: by.id, name: by.name }, notReverted };
}

function isIsoTime(value: unknown): value is string {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value));
}

function isNullableString(value: unknown): value is string | null {
  return value === null || typeof value === 'string';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}
