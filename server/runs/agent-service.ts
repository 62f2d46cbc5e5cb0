import { Rejection } from '../../shared/protocol/rejection.ts';
import { isRecordId } from '../../shared/notes/annotations.ts';
import { setInstructionState } from '../../shared/notes/annotations-writers.ts';
import type { ApplyError } from '../../shared/applier/applier.ts';
import type { Claims } from '../../shared/protocol/claims.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import { opKinds, type OpKind } from '../../shared/applier/op-kinds.ts';
import { serverOrigin } from '../../shared/model/origins.ts';
import { coversDoc, may } from '../../shared/protocol/permissions.ts';
import { claimedStates } from '../../shared/protocol/run-states.ts';
import { readDocState } from '../docs/read-doc.ts';
import type { StoredRun } from '../store/store.ts';
import { parseActivityInput, parseCompleteInput, parseFailInput, parseOpsInput } from './agent-input.ts';
import type { ActivityAnswer } from '../../shared/wire/activity.ts';
import { alreadyChanged, invalidInput, notClaimed, runNotFound } from './run-error.ts';
import type { RunServiceDeps } from './run-services.ts';
import { applyBatch, takeBack } from './run-text.ts';
import type { RunChange } from '../../shared/protocol/run-record.ts';
import type { SavedRunScope } from '../../shared/applier/run-scope.ts';
import { recordAudit } from '../audit/record-audit.ts';
import type { ClaimedRun, HeartbeatAnswer, OpsAnswer, QueuedRun, RunStateAnswer } from '../../shared/wire/agent.ts';
import { runItemView } from '../../shared/wire/runs.ts';
import type { PageApplyError } from '../../shared/page/page-applier.ts';
import { pageOpKinds } from '../../shared/page/page-ops.ts';
import { applyPageBatch } from '../pages/page-runs.ts';
import { pageAnswerOf } from '../pages/page-work.ts';
import { pageSource } from '../../shared/page/page-source.ts';
import { textBlocksJson } from '../docs/text-views.ts';
import { rawBlocks } from '../raw-json.ts';
import { assetUrl } from '../../shared/model/image-src.ts';

/** A change of an applied batch: a block op's (with its blocks and, VAR1, its candidates) or a page op's. */
type BatchChange = RunChange & { candidates?: string[]; blockIds?: string[] };

/** The run change a batch's change is kept as; VAR1: a propose_variants keeps every candidate, the first shown. */
function toRunChange(change: BatchChange): RunChange {
  const { op, blockId, instructionId, before, after } = change;
  const kept: RunChange = { op, blockId, instructionId, before, after };
  if (change.variants) kept.variants = change.variants;
  else if (change.candidates) kept.variants = { candidates: change.candidates, chosen: 0, blockIds: change.blockIds ?? [] };
  return kept;
}

/** IMG4: the addresses of the images uploaded into a document, the only asset addresses its runs may write. */
async function assetUrlsOf(store: RunServiceDeps['store'], docId: string): Promise<ReadonlySet<string>> {
  return new Set((await store.assets.ids(docId)).map((assetId) => assetUrl(docId, assetId)));
}

/** How often a long poll looks at the store itself (another process may have queued a run). */
const storeCheckMs = 1000;

const applyStatus: Record<ApplyError['code'] | PageApplyError['code'], number> = {
  STALE_BLOCK: 409,
  STALE_ELEMENT: 409,
  INVALID_OP: 422,
  OP_NOT_ALLOWED: 403,
  OUTSIDE_FENCE: 403,
  UNKNOWN_ASSET: 422,
};

/**
 * What an agent may do with runs (docs/api.md, agent routes): list queued runs, claim one,
 * keep its lease, send batches of ops, complete or fail it. One service behind two thin
 * adapters: the HTTP routes (server/http/agent-routes.ts) and stateless messages on an agent's
 * Yjs connection (server/extensions/agent-stateless.ts), which pass request bodies as they
 * came: the role and the run are checked before the body is read. Refusals throw Rejection.
 */
export class AgentService {
  constructor(private readonly deps: RunServiceDeps) {}

  /** QUEUE1: queued runs the agent may see, oldest first; waits up to `waitMs` for one to exist. */
  async queued(principal: Claims, waitMs: number, signal?: AbortSignal, model?: string | null): Promise<QueuedRun[]> {
    this.mustBeAgent(principal);
    const { store, notifier } = this.deps;
    const deadline = Date.now() + waitMs;
    // RUN7: an agent waiting for work is connected for as long as its poll is held.
    const release = await this.deps.roster.hold(principal, model, waitMs);
    try {
      for (;;) {
        const seen = notifier.version;
        const runs = (await store.runs.listQueued()).filter((run) => coversDoc(principal, run.docId));
        const left = deadline - Date.now();
        if (runs.length > 0 || left <= 0 || notifier.closed || signal?.aborted) return runs.map(queuedView);
        await notifier.wait(seen, Math.min(left, storeCheckMs), signal);
      }
    } finally {
      await release();
    }
  }

  /** CLAIM1: queued → claimed by this agent; 409 `ALREADY_CLAIMED` when another claim won. */
  async claim(principal: Claims, runId: string): Promise<ClaimedRun> {
    const run = await this.agentRun(principal, runId);
    const { store, hocuspocus, leaseMs } = this.deps;
    const now = this.deps.now();
    if (!(await store.runs.claimRun(run.id, agentOf(principal), now, now + leaseMs))) {
      const current = await store.runs.getRun(run.id);
      if (current && claimedStates.includes(current.state)) throw new Rejection(409, 'ALREADY_CLAIMED', 'This run is already claimed by an agent.');
      throw new Rejection(409, 'NOT_QUEUED', `This run is ${current?.state ?? 'gone'}; only a queued run can be claimed.`);
    }
    await this.deps.roster.touch(principal);
    await recordAudit(store.audit, principal, 'run.claimed', run.docId, run.id);
    const page = (await store.getDoc(run.docId))?.kind === 'page';
    const document = page
      ? { blocks: [], ...(await pageAnswerOf(await readDocState(hocuspocus, store, docName(run.docId), pageSource))) }
      : { blocks: rawBlocks((await textBlocksJson(hocuspocus, store, docName(run.docId))).blocks) };
    return { ...queuedView(run), lease: { expiresAt: iso(now + leaseMs) }, document };
  }

  /** CLAIM2: extends the lease of a run this agent holds; 409 `NOT_CLAIMED` otherwise. */
  async heartbeat(principal: Claims, runId: string): Promise<HeartbeatAnswer> {
    const run = await this.agentRun(principal, runId);
    const now = this.deps.now();
    const expiresAt = now + this.deps.leaseMs;
    if (!(await this.deps.store.runs.renewLease(run.id, principal.sub, now, expiresAt))) throw notClaimed();
    return { lease: { expiresAt: iso(expiresAt) } };
  }

  /**
   * OP5, OP6: applies one batch for a run this agent holds, all or nothing. A key seen before
   * answers what it answered then and applies nothing; a refused batch is not remembered.
   */
  async ops(principal: Claims, runId: string, body: unknown): Promise<OpsAnswer> {
    const run = await this.agentRun(principal, runId);
    const input = parseOpsInput(body);
    const { store, locks } = this.deps;
    const page = (await store.getDoc(run.docId))?.kind === 'page';
    return locks.run(run.id, async () => {
      const current = (await store.runs.getRun(run.id)) ?? run;
      const replay = await store.runs.findBatch(run.id, input.idempotencyKey);
      // What was recorded under the key is the answer given then, an OpsAnswer.
      if (replay !== undefined && current.claimedBy?.id === principal.sub) return replay as OpsAnswer;
      if (!holdsClaim(current, principal, this.deps.now())) throw notClaimed();
      const allowed = new Set<string>(principal.ops ?? [...opKinds, ...pageOpKinds]);
      const record = (changes: readonly BatchChange[], applied: number, scope: SavedRunScope) =>
        store.runs.recordBatch(run.id, principal.sub, this.deps.now(), {
          idempotencyKey: input.idempotencyKey,
          response: { applied },
          changes: changes.map(toRunChange),
          scope,
        });
      const result = page
        ? await applyPageBatch(this.deps, current, input.ops, allowed, record)
        : await applyBatch(this.deps, current, input.ops, allowed as ReadonlySet<OpKind>, record, await assetUrlsOf(store, run.docId));
      if (result.ok === 'unrecorded') throw notClaimed();
      if (!result.ok) {
        const { code, message, index } = result.error;
        const named = 'elementId' in result.error ? { elementId: result.error.elementId } : 'blockId' in result.error ? { blockId: result.error.blockId } : {};
        throw new Rejection(applyStatus[code], code, message, { index, ...named });
      }
      return { applied: result.applied };
    });
  }

  /**
   * MODEL8: keeps what the agent holding the run tells of its work (a line, tokens, its model)
   * on the run, which mirrors it to every reader; 409 `NOT_CLAIMED` for anyone else.
   */
  async activity(principal: Claims, runId: string, body: unknown): Promise<ActivityAnswer> {
    const run = await this.agentRun(principal, runId);
    const report = parseActivityInput(body);
    if (report.model) await this.deps.roster.touch(principal, report.model);
    if (!(await this.deps.store.runs.recordActivity(run.id, principal.sub, this.deps.now(), report))) throw notClaimed();
    return { ok: true };
  }

  /**
   * CLAIM4: claimed → review, with what the agent says of each instruction it did not change. An
   * item is either changed or refused: a refusal of an instruction that a batch of this claim
   * answered is `409 ALREADY_CHANGED` (with `instructionId`), and the run stays claimed.
   */
  async complete(principal: Claims, runId: string, body: unknown): Promise<RunStateAnswer & { state: 'review' }> {
    const run = await this.agentRun(principal, runId);
    const input = parseCompleteInput(body);
    const { store, locks } = this.deps;
    const known = new Set(run.items.map((item) => item.instructionId));
    const stranger = input.refusals.find((refusal) => !known.has(refusal.instructionId));
    if (stranger) throw invalidInput(`"${stranger.instructionId.slice(0, 64)}" is no instruction of this run.`);
    const refusals = new Map(input.refusals.map((refusal) => [refusal.instructionId, refusal.reason]));
    await locks.run(run.id, async () => {
      const current = await store.runs.getRun(run.id);
      if (!current || !holdsClaim(current, principal, this.deps.now())) throw notClaimed();
      const changed = current.items.find((item) => item.outcome === 'changed' && refusals.has(item.instructionId));
      if (changed) throw alreadyChanged(changed.instructionId);
      if (!(await store.runs.completeRun(run.id, principal.sub, this.deps.now(), { summary: input.summary, refusals }))) throw notClaimed();
    });
    await recordAudit(store.audit, principal, 'run.completed', run.docId, run.id);
    return { state: 'review' };
  }

  /** CLAIM5: claimed → failed; the run's changes are taken back, its instructions queued again. */
  async fail(principal: Claims, runId: string, body: unknown): Promise<RunStateAnswer & { state: 'failed' }> {
    const run = await this.agentRun(principal, runId);
    const input = parseFailInput(body);
    const { store, locks } = this.deps;
    await locks.run(run.id, async () => {
      const current = await store.runs.getRun(run.id);
      if (!current || !holdsClaim(current, principal, this.deps.now())) throw notClaimed();
      const failed = await takeBack(
        this.deps,
        current,
        () => store.runs.failRun(run.id, principal.sub, this.deps.now(), input.message),
        (notes) => {
          for (const item of current.items) setInstructionState(notes, item.instructionId, 'queued', null, serverOrigin);
        },
      );
      if (!failed) throw notClaimed();
    });
    await recordAudit(store.audit, principal, 'run.failed', run.docId, run.id);
    return { state: 'failed' };
  }

  /** Throws 403 unless `principal` is an agent. */
  mustBeAgent(principal: Claims): void {
    if (!may(principal.role, 'run.work')) throw new Rejection(403, 'FORBIDDEN', 'Only agents may claim runs and work on them.');
  }

  /** The run, when `principal` is an agent that may work on it; else throws 403 or 404. */
  private async agentRun(principal: Claims, runId: string): Promise<StoredRun> {
    this.mustBeAgent(principal);
    const run = isRecordId(runId) ? await this.deps.store.runs.getRun(runId) : null;
    if (!run) throw runNotFound();
    if (!coversDoc(principal, run.docId)) {
      throw new Rejection(403, 'FORBIDDEN', 'This run belongs to a document your token is not for.');
    }
    // RUN7: an agent is seen while it holds the run's claim; a refused request does not count.
    if (holdsClaim(run, principal, this.deps.now())) await this.deps.roster.touch(principal);
    return run;
  }
}

/** Whether `principal` holds the claim of `run` now: claimed by it, its lease not run out. */
export function holdsClaim(run: StoredRun, principal: Claims, now: number): boolean {
  return claimedStates.includes(run.state) && run.claimedBy?.id === principal.sub && (run.leaseExpiresAt ?? 0) > now;
}

function agentOf(principal: Claims) {
  return { id: principal.sub, name: principal.name };
}

function queuedView(run: StoredRun): QueuedRun {
  return {
    runId: run.id,
    docId: run.docId,
    items: run.items.map(runItemView),
    createdAt: iso(run.createdAt),
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
