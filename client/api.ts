import type { DocKind } from '../shared/doc-layout.ts';

export interface DocSummary {
  id: string;
  title: string;
  kind: DocKind;
  updatedAt?: string | number;
}

/** A failed request, in words a person can read. `code` is the server's or `OFFLINE`. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 0,
  ) {
    super(message);
  }
}

async function request<T>(token: string, method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError('OFFLINE', 'The server cannot be reached.');
  }
  const payload: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const error = (payload as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    throw new ApiError(
      typeof error?.code === 'string' ? error.code : `HTTP_${response.status}`,
      typeof error?.message === 'string' ? error.message : `The server answered ${response.status}.`,
      response.status,
    );
  }
  return payload as T;
}

export function listDocs(token: string): Promise<DocSummary[]> {
  return request<DocSummary[]>(token, 'GET', '/api/docs');
}

export function createDoc(token: string, title: string): Promise<DocSummary> {
  return request<DocSummary>(token, 'POST', '/api/docs', { title });
}

export interface SentRun {
  runId: string;
  items: { instructionId: string; blockId: string; instruction: string }[];
}

/**
 * Sends the document's ready instructions as one run. Fails with `RUN_OUTSTANDING` (409) while
 * another run is outstanding and `NOTHING_TO_SEND` (422) when no instruction is ready.
 */
export function sendRun(token: string, docId: string): Promise<SentRun> {
  return request<SentRun>(token, 'POST', `/api/docs/${encodeURIComponent(docId)}/runs`, {});
}

export type RunDecision = 'accept' | 'discard';

/**
 * Accept run keeps the run's changes; Discard run undoes them, and a `reason` (discard only)
 * becomes a draft instruction where each change was. Fails with `NOT_IN_REVIEW` (409) when the
 * run is not (or no longer) in review, `INVALID_REASON` (422) for a reason over 2000 characters.
 */
export function decideRun(token: string, runId: string, decision: RunDecision, reason?: string): Promise<{ state: string }> {
  const body = decision === 'discard' && reason?.trim() ? { reason: reason.trim() } : {};
  return request<{ state: string }>(token, 'POST', `/api/runs/${encodeURIComponent(runId)}/${decision}`, body);
}

/** A change Revert run left as it is, and why (PROTOCOL.md REV8). */
export interface NotRevertedChange {
  blockId: string;
  instructionId: string;
  reason: 'rewritten' | 'removed';
}

/**
 * Revert run takes back an accepted run's changes, keeping everything written since. Fails with
 * `NOT_ACCEPTED`, `ALREADY_REVERTED` or `NOT_REVERTIBLE` (409).
 */
export function revertRun(token: string, runId: string): Promise<{ state: string; notReverted: NotRevertedChange[] }> {
  return request(token, 'POST', `/api/runs/${encodeURIComponent(runId)}/revert`, {});
}

/** Undo discard puts a discarded run back in review; `UNDO_WINDOW_CLOSED` (409) once it cannot. */
export function undoDiscard(token: string, runId: string): Promise<{ state: string }> {
  return request(token, 'POST', `/api/runs/${encodeURIComponent(runId)}/undo-discard`, {});
}
