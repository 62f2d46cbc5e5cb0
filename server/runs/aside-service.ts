import { Rejection } from '../../shared/protocol/rejection.ts';
import { isRecordId } from '../../shared/notes/annotations.ts';
import type { Claims } from '../../shared/protocol/claims.ts';
import { coversDoc, may } from '../../shared/protocol/permissions.ts';
import { asideRoute } from '../../shared/protocol/aside-route.ts';
import { randomId } from '../../shared/model/ids.ts';
import {
  AsideAnswerBody,
  AsideBody,
  maxAsideAnswerLength,
  type AgentAside,
  type AsideAnswer,
  type AsideAnswerAck,
  type AsideRecord,
} from '../../shared/wire/asides.ts';
import type { Store, StoredRun } from '../store/store.ts';
import type { AsideBoard, AsideLimits } from '../store/aside-board.ts';
import { readInput } from '../read-input.ts';
import { holdsClaim } from './agent-service.ts';
import { notClaimed, runNotFound } from './run-error.ts';
import { QueueNotifier } from './queue-notifier.ts';
import type { AsideMirror } from './aside-mirror.ts';

/**
 * Asides one person may send on one run in all, and their questions waiting for an answer at
 * once (ASIDE3). Per person only: a cap on the run as a whole is one that a single commenter can
 * fill, blocking everyone else's questions, an editor's too. What a run holds stays bounded
 * without one: these caps times the people who hold a token for the document, each of them
 * rate-limited (LIMIT7).
 */
const limits: AsideLimits = { total: 200, openQuestions: 4 };
/** How often a long poll looks at the board again without being woken (a notice from another instance may be missed). */
const pollLookMs = 1000;
/** How long after an aside ended its mirrored record is checked, when other instances share the board (AsideMirror.settle). */
const settleMirrorMs = 1000;
/** How long past its timeout an open question must be before another instance than its asker's ends it. */
const orphanGraceMs = 5000;

/** A person's question whose request waits on this instance. */
interface HeldQuestion {
  runId: string;
  docId: string;
  /** Resolves the request with `answer`, or rejects it with an error (a Rejection is answered as it says, anything else as a 500). */
  settle(answer: AsideAnswer | Error): void;
}

/** The agent's long polls of one run on this instance. */
interface RunPolls {
  docId: string;
  notifier: QueueNotifier;
}

export interface AsideServiceDeps {
  store: Store;
  mirror: AsideMirror;
  /** The clock of claims and leases (the same as the run services'). */
  now: () => number;
  /** How long a person's question waits for the agent's answer before it goes to the run as a steer. */
  timeoutMs: number;
  /** Told of a failure nobody waits for (reading an aside the board said changed). */
  onError: (error: unknown) => void;
}

/**
 * Asides (PROTOCOL.md ASIDE1–ASIDE9): a person's side question or steer for the agent holding a
 * run. A question holds the person's request until the agent's answer is done, or until
 * `timeoutMs`, when it goes to the run as a steer and says so; a steer is queued for the agent
 * and answered at once. The agent long-polls its run's asides and streams each answer back;
 * every step is mirrored into the document's `<id>/runs` Y.Doc. The asides themselves are on
 * the store's board (server/store/aside-board.ts) while their run is claimed: in memory for
 * SQLite, in the database for PostgreSQL, so that the person and the agent may reach different
 * instances (SCALE5). This service holds only what waits on this instance: the people's
 * requests and the agent's polls, woken by the board's notices.
 */
export class AsideService {
  private readonly held = new Map<string, HeldQuestion>();
  private readonly polls = new Map<string, RunPolls>();
  private readonly settling = new Set<NodeJS.Timeout>();

  constructor(private readonly deps: AsideServiceDeps) {
    deps.store.asides.onChanged((runId, asideId) => void this.changed(runId, asideId).catch(deps.onError));
  }

  private get board(): AsideBoard {
    return this.deps.store.asides;
  }

  /** ASIDE1, ASIDE3: a person asks or steers; resolves with where the text went. */
  async ask(principal: Claims, runId: string, body: unknown): Promise<AsideAnswer> {
    if (!may(principal.role, 'run.aside')) throw new Rejection(403, 'FORBIDDEN', 'Only editors and commenters may ask the agent or steer a run.');
    const run = isRecordId(runId) ? await this.deps.store.runs.getRun(runId) : null;
    if (!run || !coversDoc(principal, run.docId) || !(await this.deps.store.getDoc(run.docId))) throw runNotFound();
    const input = readInput(AsideBody, body);
    if (run.state !== 'claimed') throw runNotActive(run.state);
    const kind = asideRoute(input.text, input.steer) === 'side' ? 'question' : 'steer';
    const record = newRecord(run.id, kind, input.text, { id: principal.sub, name: principal.name });
    if (kind === 'question') await this.endOrphanedQuestions(run.id);
    const outcome = await this.board.add({ record, docId: run.docId, mirrored: true }, limits);
    if (outcome === 'too-many') throw new Rejection(429, 'TOO_MANY_ASIDES', 'You have sent as many asides on this run as one person may.', { retryAfter: 60 });
    if (outcome === 'too-many-open') {
      throw new Rejection(429, 'TOO_MANY_ASIDES', 'The agent has your questions to answer already; wait for its answers.', { retryAfter: 5 });
    }
    this.mirror(run.docId, record);
    if (kind === 'steer') return { route: 'agent' };
    const answered = new Promise<AsideAnswer>((resolve, reject) => {
      const timer = setTimeout(() => void this.timedOut(record.asideId), this.deps.timeoutMs);
      this.held.set(record.asideId, {
        runId: run.id,
        docId: run.docId,
        settle: (answer) => {
          clearTimeout(timer);
          this.held.delete(record.asideId);
          if (answer instanceof Error) reject(answer);
          else resolve(answer);
        },
      });
    });
    answered.catch(() => {});
    try {
      // The answer may have come before the request began to wait here, and the run may have
      // left `claimed` since it was read: then the question ends at once.
      await this.changed(run.id, record.asideId);
      await this.runChanged(run.id);
    } catch (error) {
      this.held.get(record.asideId)?.settle(error instanceof Error ? error : new Error(String(error)));
    }
    return answered;
  }

  /** ASIDE4: the asides of a run the agent holds that it has not yet received; waits up to `waitMs` for one. */
  async pending(principal: Claims, runId: string, waitMs: number, signal?: AbortSignal): Promise<AgentAside[]> {
    const deadline = Date.now() + waitMs;
    for (let look = 0; ; look++) {
      const run = await this.agentRun(principal, runId);
      if (look === 0) await this.endOrphanedQuestions(run.id);
      let polls = this.polls.get(run.id);
      if (!polls) this.polls.set(run.id, (polls = { docId: run.docId, notifier: new QueueNotifier() }));
      const { notifier } = polls;
      const seen = notifier.version;
      // An agent that went away takes nothing: what is held stays for its next look.
      if (signal?.aborted) return [];
      const taken = await this.board.takeUndelivered(run.id);
      // The run may have left `claimed` since it was read: then nothing is kept for it.
      if (taken.length === 0) await this.runChanged(run.id);
      const left = deadline - Date.now();
      if (taken.length > 0 || left <= 0 || signal?.aborted || notifier.closed) {
        return taken.map(({ record }) => ({ asideId: record.asideId, kind: record.kind, text: record.text, askedBy: record.askedBy }));
      }
      await notifier.wait(seen, Math.min(left, pollLookMs), signal);
    }
  }

  /** ASIDE5: the agent streams (`chunk`) or sets (`answer`) an aside's answer, and ends it (`done`). */
  async answer(principal: Claims, runId: string, asideId: string, body: unknown): Promise<AsideAnswerAck> {
    const run = await this.agentRun(principal, runId);
    const input = readInput(AsideAnswerBody, body);
    let tooLong = false;
    const result = await this.board.update(asideId, (record) => {
      if (record.runId !== run.id || record.done) return null;
      const answer = input.answer ?? record.answer + (input.chunk ?? '');
      if (answer.length > maxAsideAnswerLength) {
        tooLong = true;
        return null;
      }
      const next: AsideRecord = { ...record, answer };
      if (input.usage && input.usage.inputTokens > 0) next.cachedShare = Math.min(1, input.usage.cachedInputTokens / input.usage.inputTokens);
      if (input.done) {
        next.done = true;
        next.route = record.kind === 'steer' ? 'agent' : (input.route ?? 'side');
        next.handoff = next.route === 'side' && input.handoff?.trim() ? input.handoff.trim() : null;
        if (record.kind === 'question' && next.route === 'agent') next.note = 'The agent took this as a steer for the run.';
      }
      return next;
    });
    if (!result || result.aside.record.runId !== run.id) throw new Rejection(404, 'NOT_FOUND', 'This run has no aside with this id.');
    if (tooLong) throw new Rejection(422, 'INVALID_BODY', `An answer is at most ${maxAsideAnswerLength} characters.`);
    if (!result.changed) return { open: false };
    if (result.aside.mirrored) this.mirror(result.aside.docId, result.aside.record);
    return { open: !result.aside.record.done };
  }

  /** Called on every change of a run: once it is no longer claimed, its asides end (ASIDE8). */
  async runChanged(runId: string): Promise<void> {
    const run = await this.deps.store.runs.getRun(runId);
    if (run?.state === 'claimed') return;
    await this.board.dropRun(runId);
    this.endHere(runId);
  }

  /** Called when another instance changed a run of `docId` (SCALE3): the runs waited on here are looked at again. */
  async docRunsChanged(docId: string): Promise<void> {
    const runIds = new Set<string>();
    for (const [runId, polls] of this.polls) if (polls.docId === docId) runIds.add(runId);
    for (const question of this.held.values()) if (question.docId === docId) runIds.add(question.runId);
    await Promise.all([...runIds].map((runId) => this.runChanged(runId)));
  }

  /** Ends what waits on this instance (server shutdown); the asides stay on the board for the other instances. */
  close(): void {
    for (const timer of this.settling) clearTimeout(timer);
    this.settling.clear();
    const runIds = new Set([...this.polls.keys(), ...[...this.held.values()].map((question) => question.runId)]);
    for (const runId of runIds) this.endHere(runId);
  }

  /** The board says an aside was added or changed: wake the run's polls, and settle the person's request once its answer is done. */
  private async changed(runId: string, asideId: string): Promise<void> {
    this.polls.get(runId)?.notifier.notify();
    if (!this.held.has(asideId)) return;
    const aside = await this.board.get(asideId);
    if (!aside?.record.done) return;
    const record = aside.record;
    this.held.get(asideId)?.settle(
      record.route === 'side' ? { route: 'side', answer: record.answer, ...(record.handoff ? { handoff: record.handoff } : {}) } : { route: 'agent', note: record.note ?? undefined },
    );
  }

  private endHere(runId: string): void {
    const polls = this.polls.get(runId);
    this.polls.delete(runId);
    polls?.notifier.close();
    for (const question of [...this.held.values()]) {
      if (question.runId === runId) question.settle(new Rejection(409, 'RUN_NOT_ACTIVE', 'The run ended before the agent answered.'));
    }
  }

  /** ASIDE7: a question the agent did not answer in time goes to the run as a steer, and the person is told. */
  private async timedOut(asideId: string): Promise<void> {
    const question = this.held.get(asideId);
    if (!question) return;
    try {
      const ended = await this.sendOnAsSteer(asideId, question.runId, question.docId);
      if (ended === 'gone') question.settle(new Rejection(409, 'RUN_NOT_ACTIVE', 'The run ended before the agent answered.'));
      else if (ended === 'answered') await this.changed(question.runId, asideId);
      else question.settle({ route: 'agent', note: ended.note ?? undefined });
    } catch (error) {
      question.settle(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /**
   * Ends an unanswered question as timed out and queues it for the agent as a steer (ASIDE7);
   * 'answered' when the agent's answer ended it first, 'gone' when the run's asides are gone.
   */
  private async sendOnAsSteer(asideId: string, runId: string, docId: string): Promise<AsideRecord | 'answered' | 'gone'> {
    const note = `The agent did not answer within ${duration(this.deps.timeoutMs)}: the question went to the run as a steer.`;
    // The steer is on the board in the same step: whoever is told the question ended finds it there.
    const result = await this.board.update(
      asideId,
      (record) => (record.done ? null : { ...record, done: true, route: 'agent', note }),
      (record) => ({ record: newRecord(record.runId, 'steer', record.text, record.askedBy), docId, mirrored: false }),
    );
    if (!result) return 'gone';
    if (!result.changed) return 'answered';
    const { record } = result.aside;
    this.mirror(docId, record);
    // A steer added after the run ended would stay on the board: look at the run again.
    await this.runChanged(runId);
    return record;
  }

  /**
   * SCALE5: ends the open questions of the run that the instance that took them did not end in
   * time: it stopped (a crash, a restart) with their timers, and on a shared board they outlive
   * it. Without this they would count against the run's open questions until it ends.
   */
  private async endOrphanedQuestions(runId: string): Promise<void> {
    if (!this.board.shared) return;
    const cutoff = Date.now() - this.deps.timeoutMs - orphanGraceMs;
    for (const question of await this.board.openQuestions(runId)) {
      if (this.held.has(question.record.asideId) || Date.parse(question.record.askedAt) > cutoff) continue;
      await this.sendOnAsSteer(question.record.asideId, runId, question.docId);
    }
  }

  private mirror(docId: string, record: AsideRecord): void {
    void this.deps.mirror.write(docId, record);
    if (!record.done || !this.board.shared) return;
    const timer = setTimeout(() => {
      this.settling.delete(timer);
      void this.deps.mirror.settle(docId, record);
    }, settleMirrorMs);
    timer.unref();
    this.settling.add(timer);
  }

  /** The run, when `principal` is the agent holding its claim now; else 403, 404 or 409 `NOT_CLAIMED`. */
  private async agentRun(principal: Claims, runId: string): Promise<StoredRun> {
    if (!may(principal.role, 'run.work')) throw new Rejection(403, 'FORBIDDEN', 'Only agents may answer asides.');
    const run = isRecordId(runId) ? await this.deps.store.runs.getRun(runId) : null;
    if (!run) throw runNotFound();
    if (!coversDoc(principal, run.docId)) throw new Rejection(403, 'FORBIDDEN', 'This run belongs to a document your token is not for.');
    if (!holdsClaim(run, principal, this.deps.now())) throw notClaimed();
    return run;
  }
}

function newRecord(runId: string, kind: AsideRecord['kind'], text: string, askedBy: AsideRecord['askedBy']): AsideRecord {
  return {
    asideId: `${Date.now().toString(36).padStart(9, '0')}${randomId(8)}`,
    runId,
    kind,
    text,
    askedBy: { ...askedBy },
    askedAt: new Date().toISOString(),
    route: kind === 'steer' ? 'agent' : null,
    answer: '',
    handoff: null,
    done: false,
    note: null,
    cachedShare: null,
  };
}

function duration(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}

function runNotActive(state: string): Rejection {
  return new Rejection(409, 'RUN_NOT_ACTIVE', `This run is ${state}: only a run an agent is working on takes asides.`);
}
