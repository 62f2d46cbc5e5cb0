import type * as v from 'valibot';
import { Rejection } from '../shared/protocol/rejection.ts';
import {
  ClaimedRun,
  HeartbeatAnswer,
  OpsAnswer,
  QueuedRunList,
  RunStateAnswer,
  type CompleteBody,
  type FailBody,
  type OpsBody,
  type QueuedRun,
  type Refusal,
} from '../shared/wire/agent.ts';
import { DocView, type BlockView, type ElementView } from '../shared/wire/docs.ts';
import { AgentAsideList, AsideAnswerAck, type AgentAside, type AsideAnswerBody } from '../shared/wire/asides.ts';
import { ActivityAnswer, type ActivityBody } from '../shared/wire/activity.ts';
import { ErrorEnvelope } from '../shared/wire/errors.ts';
import { readWire } from '../shared/wire/parse.ts';
import type { PlannedOp } from './reference/plan.ts';
import type { PlannedPageOp } from './reference/page-plan.ts';

export type { AgentAside, ClaimedRun, QueuedRun, Refusal };

/**
 * A client of the agent HTTP API (docs/api.md, "Agent routes"). Every agent, built in or external, goes
 * through these routes; the built-in reference agent has no private shortcut. Bodies and answers
 * are the wire types of shared/wire; an answer that does not have its type is refused
 * (Rejection `BAD_ANSWER`) rather than half-read.
 */
export class AgentApiClient {
  private readonly base: string;

  /**
   * `model`: the model a model agent works with, named in its polls for work so that people see
   * it among the document's agents before it takes a run (RUN7).
   */
  constructor(
    baseUrl: string,
    private readonly token: string,
    private readonly model: string | null = null,
  ) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  /** Queued runs; with `waitSeconds` the server holds the request until one exists (a long poll). */
  queuedRuns(waitSeconds = 0, signal?: AbortSignal): Promise<QueuedRun[]> {
    const wait = waitSeconds > 0 ? `&wait=${Math.min(30, Math.round(waitSeconds))}` : '';
    const model = this.model ? `&model=${encodeURIComponent(this.model)}` : '';
    return this.request(QueuedRunList, 'GET', `/api/agent/runs?state=queued${wait}${model}`, undefined, signal);
  }

  claim(runId: string): Promise<ClaimedRun> {
    return this.request(ClaimedRun, 'POST', `${runPath(runId)}/claim`);
  }

  heartbeat(runId: string): Promise<HeartbeatAnswer> {
    return this.request(HeartbeatAnswer, 'POST', `${runPath(runId)}/heartbeat`);
  }

  sendOps(runId: string, idempotencyKey: string, ops: PlannedOp[] | PlannedPageOp[]): Promise<OpsAnswer> {
    const body: OpsBody = { idempotencyKey, ops };
    return this.request(OpsAnswer, 'POST', `${runPath(runId)}/ops`, body);
  }

  complete(runId: string, summary: string, refusals: Refusal[]): Promise<RunStateAnswer> {
    const body: CompleteBody = { summary, refusals };
    return this.request(RunStateAnswer, 'POST', `${runPath(runId)}/complete`, body);
  }

  fail(runId: string, message: string): Promise<RunStateAnswer> {
    const body: FailBody = { message };
    return this.request(RunStateAnswer, 'POST', `${runPath(runId)}/fail`, body);
  }

  /** ASIDE4: the asides of a run this agent holds not yet received; with `waitSeconds`, a long poll. */
  asides(runId: string, waitSeconds = 0, signal?: AbortSignal): Promise<AgentAside[]> {
    const wait = waitSeconds > 0 ? `?wait=${Math.min(30, Math.round(waitSeconds))}` : '';
    return this.request(AgentAsideList, 'GET', `${runPath(runId)}/asides${wait}`, undefined, signal);
  }

  /** ASIDE5: a piece of an aside's answer (`chunk`), or all of it (`answer`), and `done` to end it. */
  answerAside(runId: string, asideId: string, body: Partial<AsideAnswerBody>): Promise<AsideAnswerAck> {
    return this.request(AsideAnswerAck, 'POST', `${runPath(runId)}/asides/${encodeURIComponent(asideId)}/answer`, body);
  }

  /** MODEL8: what the agent does now on a run it holds, the tokens it used, its model. */
  activity(runId: string, body: ActivityBody): Promise<ActivityAnswer> {
    return this.request(ActivityAnswer, 'POST', `${runPath(runId)}/activity`, body);
  }

  /** The source and elements of a page (PAGE3); a text document has none (Rejection `NOT_A_PAGE`). */
  async page(docId: string): Promise<{ html: string; elements: ElementView[] }> {
    const view = await this.request(DocView, 'GET', `/api/docs/${encodeURIComponent(docId)}`);
    if (view.elements === undefined || view.html === undefined) throw new Rejection(422, 'NOT_A_PAGE', 'This document is text: it has no elements.');
    return { html: view.html, elements: view.elements };
  }

  /** The blocks of a text document; a page has none (Rejection `NOT_TEXT`). */
  async document(docId: string): Promise<{ blocks: BlockView[] }> {
    const view = await this.request(DocView, 'GET', `/api/docs/${encodeURIComponent(docId)}`);
    if (view.blocks === undefined) throw new Rejection(422, 'NOT_TEXT', 'This document is a page: it has no blocks.');
    return { blocks: view.blocks };
  }

  private async request<S extends v.GenericSchema>(
    answer: S,
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<v.InferOutput<S>> {
    const response = await fetch(this.base + path, {
      method,
      signal,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const json = text ? safeJson(text) : null;
    if (!response.ok) {
      const envelope = readWire(ErrorEnvelope, json);
      const fallback = { code: 'HTTP_' + response.status, message: `The server answered ${response.status}.` };
      const { code, message, ...details } = envelope.ok ? envelope.value.error : fallback;
      // The server's rejection, rebuilt on this side: the same class the server threw.
      throw new Rejection(response.status, code, message, details);
    }
    const read = readWire(answer, json);
    if (!read.ok) {
      const where = read.problem.path === null ? '' : ` at ${read.problem.path}`;
      const message = `The server's answer to ${method} ${path} is not what the API promises${where}: ${read.problem.message}`;
      throw new Rejection(502, 'BAD_ANSWER', message);
    }
    return read.value;
  }
}

function runPath(runId: string): string {
  return `/api/agent/runs/${encodeURIComponent(runId)}`;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
