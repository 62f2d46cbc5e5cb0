import { isRunState, parseChangeVariants, type ItemOutcome, type ChangeVariants, type NotReverted, type RunChange, type RunItem, type RunState } from '../../shared/protocol/run-record.ts';
import type { OpKind } from '../../shared/applier/op-kinds.ts';
import type { StoredRun } from './run-store.ts';

/* The rows of the run tables, as SQLite and PostgreSQL return them, and the run they make. */

export interface RunRow {
  id: string;
  doc_id: string;
  state: string;
  created_by: string;
  created_by_name: string;
  created_at: number;
  updated_at: number;
  claimed_by: string | null;
  claimed_by_name: string | null;
  lease_expires_at: number | null;
  decided_by: string | null;
  decided_by_name: string | null;
  reverted_at: number | null;
  reverted_by: string | null;
  reverted_by_name: string | null;
  not_reverted: string | null;
  summary: string | null;
  error: string | null;
  context_markdown: string;
}

export interface ItemRow {
  instruction_id: string;
  block_id: string;
  instruction_text: string;
  quote: string;
  current_text: string | null;
  /** 0 or 1 in SQLite, a boolean in PostgreSQL. */
  drifted: number | boolean;
  outcome: string;
  reason: string | null;
  /** Absent in rows of stores older than REV12. */
  decision?: string | null;
  /** VAR1; absent in rows of stores older than variants. */
  variants_wanted?: number | null;
}

export interface ChangeRow {
  block_id: string;
  instruction_id: string;
  op: string;
  before: string | null;
  after: string | null;
  note: string | null;
  /** VAR1: the JSON of the change's `variants`, or null; absent in stores older than variants. */
  variants?: string | null;
}

export function toStoredRun(row: RunRow, items: ItemRow[], changes: ChangeRow[]): StoredRun {
  return {
    id: row.id,
    docId: row.doc_id,
    state: toState(row.state),
    createdBy: { id: row.created_by, name: row.created_by_name },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    claimedBy: row.claimed_by === null ? null : { id: row.claimed_by, name: row.claimed_by_name ?? row.claimed_by },
    leaseExpiresAt: row.lease_expires_at,
    decidedBy: row.decided_by === null ? null : { id: row.decided_by, name: row.decided_by_name ?? row.decided_by },
    reverted:
      row.reverted_at === null
        ? null
        : {
            at: row.reverted_at,
            by: { id: row.reverted_by ?? '', name: row.reverted_by_name ?? row.reverted_by ?? '' },
            notReverted: JSON.parse(row.not_reverted ?? '[]') as NotReverted[],
          },
    summary: row.summary,
    error: row.error,
    contextMarkdown: row.context_markdown,
    ...withVariants(items.map(toItem), changes.map(toChange)),
  };
}

function toState(state: string): RunState {
  if (!isRunState(state)) throw new RangeError(`Unknown run state in the store: ${state}`);
  return state;
}

/** VAR1: each item shows the candidates of its change with variants, and the one chosen. */
function withVariants(items: RunItem[], changes: RunChange[]): { items: RunItem[]; changes: RunChange[] } {
  for (const change of changes) {
    const item = change.variants && items.find((candidate) => candidate.instructionId === change.instructionId);
    if (!item || !change.variants) continue;
    item.variants = change.variants.candidates.map((markdown, index) => ({ index, markdown }));
    item.chosen = change.variants.chosen;
  }
  return { items, changes };
}

/** The column of a change's variants, as both stores keep it. */
export function variantsColumn(change: RunChange): string | null {
  return change.variants ? JSON.stringify(change.variants) : null;
}

function toItem(row: ItemRow): RunItem {
  return {
    instructionId: row.instruction_id,
    blockId: row.block_id,
    instruction: row.instruction_text,
    quote: row.quote,
    currentText: row.current_text,
    drifted: row.drifted === 1 || row.drifted === true,
    outcome: row.outcome as ItemOutcome,
    reason: row.reason,
    decision: row.decision === 'accepted' || row.decision === 'discarded' ? row.decision : null,
    variantsWanted: row.variants_wanted ?? 1,
    variants: [],
    chosen: null,
  };
}

function toChange(row: ChangeRow): RunChange {
  return {
    op: row.op as OpKind,
    blockId: row.block_id,
    instructionId: row.instruction_id,
    before: row.before,
    after: row.after,
    ...(row.note === null ? {} : { note: row.note }),
    ...variantsOf(row),
  };
}

function variantsOf(row: ChangeRow): { variants?: ChangeVariants } {
  if (row.variants === undefined || row.variants === null) return {};
  const variants = parseChangeVariants(JSON.parse(row.variants));
  if (variants === null) throw new RangeError('A run change in the store holds variants in no known form');
  return { variants };
}
