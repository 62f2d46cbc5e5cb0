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
import { readInput } from '../read-input.ts';
import { holdsClaim } from './agent-service.ts';
import { notClaimed, runNotFound } from './run-error.ts';
import { QueueNotifier } from './queue-notifier.ts';
import type { AsideMirror } from './aside-mirror.ts';

/** Asides one run may hold in all, and questions waiting for an answer at once. */
const maxAsidesPerRun = 200;
const maxOpenQuestionsPerRun = 4;

/** One aside the service keeps while its run is claimed. */
interface Aside {
  record: AsideRecord;
  docId: string;
  /** Mirrored for the people; a question's fallback steer is for the agent only. */
  mirrored: boolean;
  /** Resolves the person's request of a question; null once answered (or for a steer). */
  settle: ((answer: AsideAnswer | Rejection) => void) | null;
}

interface RunAsides {
  docId: string;
  asides: Map<string, Aside>;
  /** Asides not yet handed to the agent, oldest first. */
  inbox: Aside[];
  /** Wakes the agent's long poll when the inbox fills or the run ends. */
  notifier: QueueNotifier;
}

export interface AsideServiceDeps {
  store: Store;
  mirror: AsideMirror;
  /** The clock of claims and leases (the same as the run services'). */
  now: () => number;
  /** How long a person's question waits for the agent's answer before it goes to the run as a steer. */
  timeoutMs: number;
}

/**
 * Asides (PROTOCOL.md ASIDE1–ASIDE9): a person's side question or steer for the agent holding a
 * run. A question holds the person's request until the agent's answer is done, or until
 * `timeoutMs`, when it goes to the run as a steer and says so; a steer is queued for the agent
 * and answered at once. The agent long-polls its run's asides and streams each answer back;
 * every step is mirrored into the document's `<id>/runs` Y.Doc. Asides live in this process's
 * memory while their run is claimed: they are a conversation, not a record of the run.
 */
export class AsideService {
  private readonly runs = new Map<string, RunAsides>();

  constructor(private readonly deps: AsideServiceDeps) {}

  /** ASIDE1, ASIDE3: a person asks or steers; resolves with where the text went. */
  async ask(principal: Claims, runId: string, body: unknown): Promise<AsideAnswer> {
    if (!may(principal.role, 'run.aside')) throw new Rejection(403, 'FORBIDDEN', 'Only editors and commenters may ask the agent or steer a run.');
    const run = isRecordId(runId) ? await this.deps.store.runs.getRun(runId) : null;
    if (!run || !coversDoc(principal, run.docId) || !(await this.deps.store.getDoc(run.docId))) throw runNotFound();
    const input = readInput(AsideBody, body);
    if (run.state !== 'claimed') throw runNotActive(run.state);
    const kind = asideRoute(input.text, input.steer) === 'side' ? 'question' : 'steer';
    const asides = this.asidesOf(run);
    if (asides.asides.size >= maxAsidesPerRun) throw new Rejection(429, 'TOO_MANY_ASIDES', 'This run has had as many asides as it may.', { retryAfter: 60 });
    const open = [...asides.asides.values()].filter((aside) => aside.settle !== null).length;
    if (kind === 'question' && open >= maxOpenQuestionsPerRun) {
      throw new Rejection(429, 'TOO_MANY_ASIDES', 'The agent has questions to answer already; wait for its answers.', { retryAfter: 5 });
    }
    const aside = this.add(asides, run.id, kind, input.text, { id: principal.sub, name: principal.name }, true);
    if (kind === 'steer') return { route: 'agent' };
    const answered = new Promise<AsideAnswer>((resolve, reject) => {
      const timer = setTimeout(() => this.timedOut(asides, aside), this.deps.timeoutMs);
      aside.settle = (answer) => {
        clearTimeout(timer);
        aside.settle = null;
        if (answer instanceof Rejection) reject(answer);
        else resolve(answer);
      };
    });
    // The run may have left `claimed` since it was read: then the question ends at once.
    answered.catch(() => {});
    await this.runChanged(run.id);
    return answered;
  }

  /** ASIDE4: the asides of a run the agent holds that it has not yet received; waits up to `waitMs` for one. */
  async pending(principal: Claims, runId: string, waitMs: number, signal?: AbortSignal): Promise<AgentAside[]> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const run = await this.agentRun(principal, runId);
      const known = this.runs.has(run.id);
      const asides = this.asidesOf(run);
      // The run may have left `claimed` since it was read: then nothing is kept for it.
      if (!known) await this.runChanged(run.id);
      const seen = asides.notifier.version;
      const left = deadline - Date.now();
      if (asides.inbox.length > 0 || left <= 0 || signal?.aborted || asides.notifier.closed) {
        return asides.inbox.splice(0).map(({ record }) => ({ asideId: record.asideId, kind: record.kind, text: record.text, askedBy: record.askedBy }));
      }
      await asides.notifier.wait(seen, left, signal);
    }
  }

  /** ASIDE5: the agent streams (`chunk`) or sets (`answer`) an aside's answer, and ends it (`done`). */
  async answer(principal: Claims, runId: string, asideId: string, body: unknown): Promise<AsideAnswerAck> {
    const run = await this.agentRun(principal, runId);
    const input = readInput(AsideAnswerBody, body);
    const aside = this.runs.get(run.id)?.asides.get(asideId);
    if (!aside) throw new Rejection(404, 'NOT_FOUND', 'This run has no aside with this id.');
    const record = aside.record;
    if (record.done) return { open: false };
    const text = input.answer ?? record.answer + (input.chunk ?? '');
    if (text.length > maxAsideAnswerLength) throw new Rejection(422, 'INVALID_BODY', `An answer is at most ${maxAsideAnswerLength} characters.`);
    record.answer = text;
    if (input.usage && input.usage.inputTokens > 0) record.cachedShare = Math.min(1, input.usage.cachedInputTokens / input.usage.inputTokens);
    if (input.done) {
      record.done = true;
      record.route = record.kind === 'steer' ? 'agent' : (input.route ?? 'side');
      record.handoff = record.route === 'side' && input.handoff?.trim() ? input.handoff.trim() : null;
      if (record.kind === 'question' && record.route === 'agent') record.note = 'The agent took this as a steer for the run.';
    }
    this.mirror(aside);
    if (record.done && aside.settle) {
      aside.settle(record.route === 'side' ? { route: 'side', answer: record.answer, ...(record.handoff ? { handoff: record.handoff } : {}) } : { route: 'agent', note: record.note ?? undefined });
    }
    return { open: !record.done };
  }

  /** Called on every change of a run: once it is no longer claimed, its asides end (ASIDE8). */
  async runChanged(runId: string): Promise<void> {
    const asides = this.runs.get(runId);
    if (!asides) return;
    const run = await this.deps.store.runs.getRun(runId);
    if (run?.state === 'claimed') return;
    this.end(runId, asides);
  }

  /** Ends every run's asides (server shutdown). */
  close(): void {
    for (const [runId, asides] of this.runs) this.end(runId, asides);
  }

  private end(runId: string, asides: RunAsides): void {
    this.runs.delete(runId);
    asides.notifier.close();
    for (const aside of asides.asides.values()) aside.settle?.(new Rejection(409, 'RUN_NOT_ACTIVE', 'The run ended before the agent answered.'));
  }

  private add(asides: RunAsides, runId: string, kind: AsideRecord['kind'], text: string, askedBy: AsideRecord['askedBy'], mirrored: boolean): Aside {
    const record: AsideRecord = {
      asideId: `${Date.now().toString(36).padStart(9, '0')}${randomId(8)}`,
      runId,
      kind,
      text,
      askedBy,
      askedAt: new Date().toISOString(),
      route: kind === 'steer' ? 'agent' : null,
      answer: '',
      handoff: null,
      done: false,
      note: null,
      cachedShare: null,
    };
    const aside: Aside = { record, docId: asides.docId, mirrored, settle: null };
    asides.asides.set(record.asideId, aside);
    asides.inbox.push(aside);
    asides.notifier.notify();
    this.mirror(aside);
    return aside;
  }

  /** ASIDE7: a question the agent did not answer in time goes to the run as a steer, and the person is told. */
  private timedOut(asides: RunAsides, aside: Aside): void {
    const record = aside.record;
    record.done = true;
    record.route = 'agent';
    record.note = `The agent did not answer within ${duration(this.deps.timeoutMs)}: the question went to the run as a steer.`;
    this.mirror(aside);
    if (this.runs.get(record.runId) === asides) this.add(asides, record.runId, 'steer', record.text, record.askedBy, false);
    aside.settle?.({ route: 'agent', note: record.note });
  }

  private mirror(aside: Aside): void {
    if (aside.mirrored) void this.deps.mirror.write(aside.docId, aside.record);
  }

  private asidesOf(run: StoredRun): RunAsides {
    let asides = this.runs.get(run.id);
    if (!asides) {
      asides = { docId: run.docId, asides: new Map(), inbox: [], notifier: new QueueNotifier() };
      this.runs.set(run.id, asides);
    }
    return asides;
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

function duration(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}

function runNotActive(state: string): Rejection {
  return new Rejection(409, 'RUN_NOT_ACTIVE', `This run is ${state}: only a run an agent is working on takes asides.`);
}
