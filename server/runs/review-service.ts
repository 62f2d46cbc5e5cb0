import { Rejection } from '../../shared/protocol/rejection.ts';
import type * as Y from 'yjs';
import { isRecordId } from '../../shared/notes/annotations.ts';
import { setInstructionState } from '../../shared/notes/annotations-writers.ts';
import type { Claims } from '../../shared/protocol/claims.ts';
import { serverOrigin } from '../../shared/model/origins.ts';
import { coversDoc, may } from '../../shared/protocol/permissions.ts';
import type { SavedRunScope } from '../../shared/applier/run-scope.ts';
import { canTake } from '../../shared/protocol/run-states.ts';
import type { StoredRun } from '../store/store.ts';
import type { ItemDecision, RunItem } from '../../shared/protocol/run-record.ts';
import { decideItemsText, type ItemsTransition } from './run-item-text.ts';
import type { RunServiceDeps } from './run-services.ts';
import { notInReview, runNotFound } from './run-error.ts';
import { keepRun, takeBack } from './run-text.ts';
import { decidePageItems, emptyScope } from '../pages/page-runs.ts';
import { assetUrl } from '../../shared/model/image-src.ts';
import { chooseVariantText, type ChoiceRecord } from './variant-text.ts';

export type Decision = ItemDecision;

/** What a decision did: the run's state after it, and the items it decided (for a discard's reason). */
export interface Decided<S = 'review' | 'accepted' | 'discarded'> {
  state: S;
  decidedIds: string[];
}

/**
 * Review (PROTOCOL.md REV1–REV7, REV12): an editor accepts a run in review (its changes stay, their
 * marks go, the blocks it deleted go unless people changed them meanwhile, which is noted on the
 * change) or discards it (every change of the run is undone and nothing else, people's typing
 * included; the annotations whose text comes back are pinned to it again), as a whole or item by
 * item (`decideItem`; the run leaves review once every item is decided). The instructions
 * decided become `answered`. Each step is all or nothing: the store's step comes first, and
 * only when it wins are the documents changed; of concurrent decisions of one item exactly one
 * wins (409 `ALREADY_DECIDED` for the others). All work after a restart between the agent's
 * write and the review, from the stored scope. A page run (PAGE8) writes the candidate of the
 * items accepted, whole or item by item, and has nothing to take back on Discard.
 */
export class ReviewService {
  constructor(private readonly deps: RunServiceDeps) {}

  /** Accept run / Discard run: decides every item not decided yet. */
  async decide(principal: Claims, runId: string, decision: Decision): Promise<Decided<Decision>> {
    const run = await this.decidable(principal, runId);
    const { store, locks } = this.deps;
    return locks.run(run.id, async () => {
      const current = (await store.runs.getRun(run.id)) ?? run;
      if (!canTake(decision === 'accepted' ? 'accept' : 'discard', current.state)) throw notInReview(current.state);
      const decidedBy = { id: principal.sub, name: principal.name };
      const undecided = current.items.filter((item) => item.decision === null).map((item) => item.instructionId);
      const transition = (notes?: ReadonlyMap<number, string>) => store.runs.decideRun(run.id, decision, Date.now(), decidedBy, notes);
      const stateAfter = async () => ((await store.runs.getRun(run.id))?.state === 'accepted' ? 'accepted' : 'discarded');
      if ((await store.getDoc(run.docId))?.kind === 'page') {
        const answer = answerInstructions(undecided, current.id);
        const state = await decidePageItems(this.deps, current, new Set(undecided), decision, async (notes) => (await transition(notes)) && stateAfter(), answer);
        if (state === false || state === 'review') throw notInReview((await store.runs.getRun(run.id))?.state ?? 'gone');
        return { state, decidedIds: undecided };
      }
      if (undecided.length < current.items.length) {
        const state = await this.decideItemsText(current, new Set(undecided), decision, async (notes) => (await transition(notes)) && stateAfter());
        if (state === false || state === 'review') throw notInReview((await store.runs.getRun(run.id))?.state ?? 'gone');
        if (decision === 'accepted') await store.authorship.accepted(run.docId, run.id, undecided, principal.name);
        return { state, decidedIds: undecided };
      }
      const answer = answerInstructions(current.items.map((item) => item.instructionId), current.id);
      const keepScope = (scope: SavedRunScope) => store.runs.storeScope(run.id, scope);
      const done =
        decision === 'accepted'
          ? await keepRun(this.deps, current, transition, answer, keepScope)
          : await takeBack(this.deps, current, transition, answer, { redoable: true });
      if (!done) throw notInReview((await store.runs.getRun(run.id))?.state ?? 'gone');
      if (decision === 'accepted') await store.authorship.accepted(run.docId, run.id, undecided, principal.name);
      return { state: decision, decidedIds: undecided };
    });
  }

  /** REV12: accepts or discards one item of a run in review; 409 `ALREADY_DECIDED` when it was decided. */
  async decideItem(principal: Claims, runId: string, instructionId: string, decision: Decision): Promise<Decided & { item: RunItem }> {
    const run = await this.decidable(principal, runId);
    const { store, locks } = this.deps;
    return locks.run(run.id, async () => {
      const current = (await store.runs.getRun(run.id)) ?? run;
      const item = undecidedItem(current, instructionId);
      const by = { id: principal.sub, name: principal.name };
      const ids = new Set([instructionId]);
      const transition = (notes?: ReadonlyMap<number, string>) => store.runs.decideItem(run.id, instructionId, decision, Date.now(), by, notes);
      const state =
        (await store.getDoc(run.docId))?.kind === 'page'
          ? await decidePageItems(this.deps, current, ids, decision, transition, answerInstructions([instructionId], run.id))
          : await this.decideItemsText(current, ids, decision, transition);
      if (state === false) {
        const now = await store.runs.getRun(run.id);
        const decided = now?.items.find((candidate) => candidate.instructionId === instructionId)?.decision;
        if (decided) throw alreadyDecided(decided);
        throw notInReview(now?.state ?? 'gone');
      }
      // WHO3: who accepted this item, kept with its text's author.
      if (decision === 'accepted') await store.authorship.accepted(run.docId, run.id, [instructionId], principal.name);
      const after = (await store.runs.getRun(run.id))?.items.find((candidate) => candidate.instructionId === instructionId);
      return { state, decidedIds: [instructionId], item: after ?? { ...item, decision } };
    });
  }

  /**
   * VAR2: item `instructionId` of a run in review, undecided, shows candidate `variant` of its
   * variants in the text, for everyone (one transaction of the run's origin, variant-text.ts);
   * choosing the candidate shown changes nothing. 422 `NO_SUCH_VARIANT` when the item has no
   * such candidate, 409 `ALREADY_DECIDED` for a decided item.
   */
  async chooseVariant(principal: Claims, runId: string, instructionId: string, variant: number): Promise<RunItem> {
    const run = await this.decidable(principal, runId);
    const { store, locks } = this.deps;
    return locks.run(run.id, async () => {
      const current = (await store.runs.getRun(run.id)) ?? run;
      const item = undecidedItem(current, instructionId);
      const change = current.changes.find((candidate) => candidate.instructionId === instructionId && candidate.variants !== undefined);
      const variants = change?.variants;
      if (!change || !variants || !Number.isInteger(variant) || variant < 0 || variant >= variants.candidates.length) {
        const count = variants?.candidates.length ?? 0;
        throw new Rejection(422, 'NO_SUCH_VARIANT', count === 0 ? 'This item has no variants to choose from.' : `This item has variants 0 to ${count - 1}; there is no variant ${variant}.`);
      }
      if (variants.chosen === variant) return item;
      const assets = new Set((await store.assets.ids(run.docId)).map((assetId) => assetUrl(run.docId, assetId)));
      const record: ChoiceRecord = (choice) => store.runs.chooseVariant(run.id, instructionId, Date.now(), choice);
      // A page run stages its candidates (PAGE7): the choice is the store's alone, shown by the run's preview.
      let recorded: boolean;
      if ((await store.getDoc(run.docId))?.kind === 'page') {
        recorded = await record({ after: variants.candidates[variant], variants: { ...variants, chosen: variant }, scope: emptyScope() });
      } else {
        const result = await chooseVariantText(this.deps, current, { ...change, variants }, variant, assets, record);
        if ('error' in result) throw new Rejection(409, result.error.code, result.error.message, { blockId: result.error.blockId });
        recorded = result.ok;
      }
      if (!recorded) {
        const now = await store.runs.getRun(run.id);
        const decided = now?.items.find((candidate) => candidate.instructionId === instructionId)?.decision;
        if (decided) throw alreadyDecided(decided);
        throw notInReview(now?.state ?? 'gone');
      }
      const after = (await store.runs.getRun(run.id))?.items.find((candidate) => candidate.instructionId === instructionId);
      return after ?? item;
    });
  }

  private decideItemsText(run: StoredRun, ids: ReadonlySet<string>, decision: Decision, transition: ItemsTransition) {
    return decideItemsText({ ...this.deps, runs: this.deps.store.runs }, run, ids, decision, transition, answerInstructions([...ids], run.id));
  }

  private async decidable(principal: Claims, runId: string): Promise<StoredRun> {
    if (!may(principal.role, 'run.decide')) throw new Rejection(403, 'FORBIDDEN', 'Only editors may accept or discard a run.');
    const run = isRecordId(runId) ? await this.deps.store.runs.getRun(runId) : null;
    if (!run) throw runNotFound();
    if (!coversDoc(principal, run.docId)) {
      throw new Rejection(403, 'FORBIDDEN', 'This run belongs to a document your token is not for.');
    }
    return run;
  }
}

/** Item `instructionId` of a run in review, not decided yet; else the refusal (409 `NOT_IN_REVIEW`, 404, 409 `ALREADY_DECIDED`). */
function undecidedItem(run: StoredRun, instructionId: string): RunItem {
  if (!canTake('accept', run.state)) throw notInReview(run.state);
  const item = run.items.find((candidate) => candidate.instructionId === instructionId);
  if (!item) throw itemNotFound();
  if (item.decision !== null) throw alreadyDecided(item.decision);
  return item;
}

const itemNotFound = () => new Rejection(404, 'NOT_FOUND', 'This run has no item for this instruction.');
const alreadyDecided = (decision: string) =>
  new Rejection(409, 'ALREADY_DECIDED', `This change was already ${decision}.`, { decision });

/** Marks instructions `ids` of run `runId` answered (those deleted or changed meanwhile are left alone). */
function answerInstructions(ids: readonly string[], runId: string): (notesYdoc: Y.Doc) => void {
  return (notes) => {
    for (const id of ids) setInstructionState(notes, id, 'answered', runId, serverOrigin);
  };
}
