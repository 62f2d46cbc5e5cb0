import { Rejection } from '../rejection.ts';
import type { BlockView } from '../../shared/doc-content.ts';
import type { PlannedOp } from './reference/plan.ts';

/**
 * A client of the agent HTTP API (CONTRACT.md, "Agent routes"). Every agent, built in or
 * external, goes through these routes; the built-in reference agent has no private shortcut.
 */

export interface RunItem {
  instructionId: string;
  blockId: string;
  instruction: string;
  /** The target text as pinned, and as it read at send time (null: deleted) when it changed in between. */
  quote?: string;
  currentText?: string | null;
  drifted?: boolean;
}

export interface QueuedRun {
  runId: string;
  docId: string;
  items: RunItem[];
  createdAt: string | number;
}

export interface ClaimedRun extends QueuedRun {
  lease: { expiresAt: string | number };
  document: { blocks: BlockView[] };
}

export interface Refusal {
  instructionId: string;
  reason: string;
}

export class AgentApiClient {
  private readonly base: string;

  constructor(
    baseUrl: string,
    private readonly token: string,
  ) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  /** Queued runs; with `waitSeconds` the server holds the request until one exists (a long poll). */
  queuedRuns(waitSeconds = 0, signal?: AbortSignal): Promise<QueuedRun[]> {
    const wait = waitSeconds > 0 ? `&wait=${Math.min(30, Math.round(waitSeconds))}` : '';
    return this.request('GET', `/api/agent/runs?state=queued${wait}`, undefined, signal);
  }

  claim(runId: string): Promise<ClaimedRun> {
    return this.request('POST', `/api/agent/runs/${encodeURIComponent(runId)}/claim`);
  }

  heartbeat(runId: string): Promise<{ lease: { expiresAt: string | number } }> {
    return this.request('POST', `/api/agent/runs/${encodeURIComponent(runId)}/heartbeat`);
  }

  sendOps(runId: string, idempotencyKey: string, ops: PlannedOp[]): Promise<{ applied: number }> {
    return this.request('POST', `/api/agent/runs/${encodeURIComponent(runId)}/ops`, { idempotencyKey, ops });
  }

  complete(runId: string, summary: string, refusals: Refusal[]): Promise<{ state: string }> {
    return this.request('POST', `/api/agent/runs/${encodeURIComponent(runId)}/complete`, { summary, refusals });
  }

  fail(runId: string, message: string): Promise<{ state: string }> {
    return this.request('POST', `/api/agent/runs/${encodeURIComponent(runId)}/fail`, { message });
  }

  document(docId: string): Promise<{ blocks: BlockView[] }> {
    return this.request('GET', `/api/docs/${encodeURIComponent(docId)}`);
  }

  private async request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
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
      const error = (json as { error?: Record<string, unknown> } | null)?.error ?? {};
      const { code, message, ...details } = error;
      // The server's rejection, rebuilt on this side: the same class the server threw.
      throw new Rejection(
        response.status,
        typeof code === 'string' ? code : 'HTTP_' + response.status,
        typeof message === 'string' ? message : `The server answered ${response.status}.`,
        details,
      );
    }
    return json as T;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
