import type * as Y from 'yjs';
import type { Hocuspocus } from '@hocuspocus/server';
import { docName, runsParts } from '../../shared/model/doc-layout.ts';
import { serverOrigin } from '../../shared/model/origins.ts';
import { withDocument } from '../docs/with-document.ts';
import { decidedRunStates, outstandingRunStates, readRunRecords, type RunRecord } from '../../shared/protocol/run-record.ts';
import { recentDecidedRuns } from '../../shared/protocol/run-state-names.ts';
import { toRunRecord, type MirrorWindow, type RunStore } from '../store/run-store.ts';
import { dropFinishedAsides } from './aside-mirror.ts';

/**
 * How many finished runs (accepted, discarded, failed, cancelled) the mirror keeps beside the
 * outstanding one: enough for the page's recent history at a glance, while every browser loads
 * a mirror of a few runs however long the document's history.
 */
export const mirroredFinishedRuns = 20;

/**
 * The mirror's window: besides the outstanding run and the newest finished ones, the decided
 * runs the page lists under Recent runs (with their `Revert run`, REV8), however many failed or
 * cancelled runs came after them.
 */
export const mirrorWindow: MirrorWindow = { finished: mirroredFinishedRuns, decided: recentDecidedRuns };

const isOutstanding = (record: Pick<RunRecord, 'state'>) => outstandingRunStates.includes(record.state);

/** The ids of `records` the mirror keeps (`mirrorWindow`). */
function windowOf(records: readonly RunRecord[]): Set<string> {
  const newestFirst = [...records].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.runId < b.runId ? 1 : -1));
  const finished = newestFirst.filter((record) => !isOutstanding(record));
  return new Set([
    ...newestFirst.filter(isOutstanding),
    ...finished.slice(0, mirrorWindow.finished),
    ...finished.filter((record) => decidedRunStates.includes(record.state)).slice(0, mirrorWindow.decided),
  ].map((record) => record.runId));
}

/**
 * Makes a runs Y.Doc hold exactly `records` (one plain JSON value per run id), writing only what
 * differs, in one transaction with the server's origin. Returns whether anything changed.
 */
export function writeRunRecords(runsYdoc: Y.Doc, records: readonly RunRecord[]): boolean {
  dropFinishedAsides(runsYdoc, new Set(records.filter((record) => record.state === 'claimed').map((record) => record.runId)));
  const runs = runsParts(runsYdoc).runs;
  const wanted = new Map(records.map((record) => [record.runId, record]));
  const stale = [...runs.keys()].filter((id) => !wanted.has(id));
  const changed = records.filter((record) => JSON.stringify(runs.get(record.runId)) !== JSON.stringify(record));
  if (stale.length === 0 && changed.length === 0) return false;
  runsYdoc.transact(() => {
    for (const id of stale) runs.delete(id);
    for (const record of changed) runs.set(record.runId, record);
  }, serverOrigin);
  return true;
}

/**
 * Writes the stored state of one run into a runs Y.Doc (`record`; null: the run is gone) and
 * drops the runs that fall out of the mirror's window with it, touching no other record. Returns
 * false, writing nothing, when the window needs runs the mirror does not hold: a finished run
 * became outstanding again (Undo discard) or a mirrored run is gone, so the next finished run in
 * the store moves in.
 */
export function writeRunRecord(runsYdoc: Y.Doc, runId: string, record: RunRecord | null): boolean {
  const runs = runsParts(runsYdoc).runs;
  const mirrored = readRunRecords(runsYdoc).runs;
  const before = mirrored.find((each) => each.runId === runId);
  const others = mirrored.filter((each) => each !== before);
  if (before && (record === null || (isOutstanding(record) && !isOutstanding(before)))) return false;
  const records = record ? [record, ...others] : others;
  const kept = windowOf(records);
  dropFinishedAsides(runsYdoc, new Set(records.filter((each) => each.state === 'claimed' && kept.has(each.runId)).map((each) => each.runId)));
  const stale = [...runs.keys()].filter((id) => !kept.has(id));
  const changed = record !== null && kept.has(record.runId) && JSON.stringify(runs.get(record.runId)) !== JSON.stringify(record);
  if (stale.length === 0 && !changed) return true;
  runsYdoc.transact(() => {
    for (const id of stale) runs.delete(id);
    if (changed) runs.set(record.runId, record);
  }, serverOrigin);
  return true;
}

/**
 * RUN4: keeps each document's read-only `<id>/runs` Y.Doc a mirror of the run store's outstanding
 * run, its `mirroredFinishedRuns` newest finished ones and its last decided ones (`mirrorWindow`). The composition root calls `refresh`
 * on the store's run-changed event (`RunStore.onRunChanged`), so every committed change of a run
 * is mirrored before the write resolves; a refresh reads the one run that changed and writes
 * only its record, dropping the run that leaves the window, if any (older runs are read with
 * `GET /api/runs/:runId`). Refreshes of one document run one after the other and each reads the
 * store inside its turn, so the mirror always ends at the latest stored state, whatever order
 * concurrent callers finish in.
 */
export class RunMirror {
  private readonly turns = new Map<string, Promise<void>>();

  constructor(private readonly hocuspocus: Hocuspocus, private readonly runs: RunStore) {}

  /** Resolves once the mirror of `docId` holds the stored state of run `runId` (and its window the latest runs). */
  refresh(docId: string, runId: string): Promise<void> {
    const previous = this.turns.get(docId) ?? Promise.resolve();
    const turn = previous.catch(() => {}).then(() => this.write(docId, runId));
    this.turns.set(docId, turn);
    const forget = () => {
      if (this.turns.get(docId) === turn) this.turns.delete(docId);
    };
    turn.then(forget, forget);
    return turn;
  }

  private async write(docId: string, runId: string): Promise<void> {
    await withDocument(this.hocuspocus, docName(docId, 'runs'), async (ydoc) => {
      const run = await this.runs.getRun(runId);
      const record = run && run.docId === docId ? toRunRecord(run) : null;
      if (writeRunRecord(ydoc, runId, record)) return;
      writeRunRecords(ydoc, (await this.runs.mirroredRuns(docId, mirrorWindow)).map(toRunRecord));
    });
  }
}
