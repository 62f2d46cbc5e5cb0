import type * as v from 'valibot';
import { AgentList, CreatedDoc, CreatedId, DocList, type AgentView, type DocSummary, type NewDocBody } from '../shared/wire/docs.ts';
import { DocRestored, DocTrashed, ImportAnswer, TrashList, type ImportBody, type TrashedDoc } from '../shared/wire/catalogue.ts';
import { ErrorEnvelope } from '../shared/wire/errors.ts';
import { readWire } from '../shared/wire/parse.ts';
import { AsideAnswer, type AsideBody } from '../shared/wire/asides.ts';
import { SessionView } from '../shared/wire/session.ts';
import { AssetUploaded } from '../shared/wire/assets.ts';
import { DiscardUndone, ItemDecided, RevertUndone, RunCancelled, RunDecision as RunDecisionAnswer, RunReverted, RunWorkOrders, SentRun, VariantChosen, type ChooseVariantBody, type DiscardBody } from '../shared/wire/runs.ts';

export type { CreatedDoc, DocSummary, SentRun };

/**
 * A failed request, in words a person can read. `code` is the server's, `OFFLINE` when the
 * server cannot be reached, or `BAD_ANSWER` when its answer is not the wire type it promises.
 */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 0,
  ) {
    super(message);
  }
}

/** The error of an answer with status `status` (not 2xx) and JSON body `payload` (null when it had none). */
export function apiErrorOf(status: number, payload: unknown): ApiError {
  const envelope = readWire(ErrorEnvelope, payload);
  if (envelope.ok) return new ApiError(envelope.value.error.code, envelope.value.error.message, status);
  return new ApiError(`HTTP_${status}`, `The server answered ${status}.`, status);
}

/** One request of the JSON API, its answer read as `answer`; a null `token` sends none (joining by an invite). */
export async function request<S extends v.GenericSchema>(
  answer: S,
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
): Promise<v.InferOutput<S>> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers: {
        ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError('OFFLINE', 'The server cannot be reached.');
  }
  const payload: unknown = await response.json().catch(() => null);
  if (!response.ok) throw apiErrorOf(response.status, payload);
  const read = readWire(answer, payload);
  if (!read.ok) throw new ApiError('BAD_ANSWER', 'The server answered something this app does not understand.', response.status);
  return read.value;
}

/** Whom `token` signs in, as the server verifies it (TOKEN6); a refused token throws its 401 code. */
export function readSession(token: string): Promise<SessionView> {
  return request(SessionView, token, 'GET', '/api/session');
}

/** The documents, or with a `query` those whose title or text has its words (CAT2). */
export function listDocs(token: string, query = ''): Promise<DocSummary[]> {
  return request(DocList, token, 'GET', query.trim() ? `/api/docs?q=${encodeURIComponent(query)}` : '/api/docs');
}

/** CAT3: the trash (editors), most recently trashed first. */
export function listTrash(token: string): Promise<TrashedDoc[]> {
  return request(TrashList, token, 'GET', '/api/docs?trash=1');
}

/** CAT3: moves a document to the trash; `restoreDoc` takes it out again (for 30 days). */
export function trashDoc(token: string, docId: string): Promise<DocTrashed> {
  return request(DocTrashed, token, 'DELETE', `/api/docs/${encodeURIComponent(docId)}`);
}

export function restoreDoc(token: string, docId: string): Promise<DocRestored> {
  return request(DocRestored, token, 'POST', `/api/docs/${encodeURIComponent(docId)}/restore`, {});
}

/** CAT4: a copy of a document; its id. */
export function duplicateDoc(token: string, docId: string): Promise<CreatedId> {
  return request(CreatedId, token, 'POST', `/api/docs/${encodeURIComponent(docId)}/duplicate`, {});
}

/** CAT6: a Markdown or HTML file's text added to the document; what could not be kept. */
export function importIntoDoc(token: string, docId: string, body: ImportBody): Promise<ImportAnswer> {
  return request(ImportAnswer, token, 'POST', `/api/docs/${encodeURIComponent(docId)}/import`, body);
}

/** CAT5: an export of the document (`markdown`, `html` or `docx`) as a file's contents. */
export async function fetchExport(token: string, docId: string, format: 'markdown' | 'html' | 'docx'): Promise<Blob> {
  return (await fetchAnswer(token, `/api/docs/${encodeURIComponent(docId)}/${format}`)).blob();
}

/** A GET of a route that answers something other than JSON (an export, a version's Markdown): its 2xx response, else its ApiError. */
export async function fetchAnswer(token: string, path: string): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(path, { headers: { Authorization: `Bearer ${token}` } });
  } catch {
    throw new ApiError('OFFLINE', 'The server cannot be reached.');
  }
  if (!response.ok) throw apiErrorOf(response.status, await response.json().catch(() => null));
  return response;
}

export function createDoc(token: string, title: string): Promise<CreatedDoc> {
  const body = { title } satisfies Pick<NewDocBody, 'title'>;
  return request(CreatedDoc, token, 'POST', '/api/docs', body);
}

/** Creates a page from HTML (PAGE1); the server sanitizes it. */
export function createPage(token: string, title: string, html: string): Promise<CreatedDoc> {
  const body = { title, kind: 'page', html } satisfies NewDocBody;
  return request(CreatedDoc, token, 'POST', '/api/docs', body);
}

/**
 * Sends the document's ready instructions as one run. Fails with `RUN_OUTSTANDING` (409) while
 * another run is outstanding and `NOTHING_TO_SEND` (422) when no instruction is ready.
 */
export function sendRun(token: string, docId: string): Promise<SentRun> {
  return request(SentRun, token, 'POST', `/api/docs/${encodeURIComponent(docId)}/runs`, {});
}

/** The work order each instruction of a run went with (`GET /api/runs/:runId`), for a run the mirror no longer holds. */
export function readRunWorkOrders(token: string, runId: string): Promise<RunWorkOrders> {
  return request(RunWorkOrders, token, 'GET', `/api/runs/${encodeURIComponent(runId)}`);
}

export type RunDecision = 'accept' | 'discard';

/**
 * Accept run keeps the run's changes; Discard run undoes them, and a `reason` (discard only)
 * becomes a draft instruction where each change was. Fails with `NOT_IN_REVIEW` (409) when the
 * run is not (or no longer) in review, `INVALID_REASON` (422) for a reason over 2000 characters.
 */
export function decideRun(token: string, runId: string, decision: RunDecision, reason?: string): Promise<RunDecisionAnswer> {
  const body: DiscardBody = decision === 'discard' && reason?.trim() ? { reason: reason.trim() } : {};
  return request(RunDecisionAnswer, token, 'POST', `/api/runs/${encodeURIComponent(runId)}/${decision}`, body);
}

/**
 * REV12: accepts or discards one item of a run in review (its instruction `instructionId`), with
 * a `reason` for a discard as `decideRun`. Fails with `NOT_IN_REVIEW` or `ALREADY_DECIDED` (409).
 */
export function decideItem(token: string, runId: string, instructionId: string, decision: RunDecision, reason?: string): Promise<ItemDecided> {
  const body: DiscardBody = decision === 'discard' && reason?.trim() ? { reason: reason.trim() } : {};
  const path = `/api/runs/${encodeURIComponent(runId)}/items/${encodeURIComponent(instructionId)}/${decision}`;
  return request(ItemDecided, token, 'POST', path, body);
}

/**
 * VAR2: item `instructionId` of a run in review shows candidate `variant` in the text, for
 * everyone. Fails with `NO_SUCH_VARIANT` (422), `ALREADY_DECIDED` or `NOT_IN_REVIEW` (409).
 */
export function chooseVariant(token: string, runId: string, instructionId: string, variant: number): Promise<VariantChosen> {
  const body: ChooseVariantBody = { variant };
  const path = `/api/runs/${encodeURIComponent(runId)}/items/${encodeURIComponent(instructionId)}/choose`;
  return request(VariantChosen, token, 'POST', path, body);
}

/**
 * Revert run takes back an accepted run's changes, keeping everything written since. Fails with
 * `NOT_ACCEPTED`, `ALREADY_REVERTED` or `NOT_REVERTIBLE` (409).
 */
export function revertRun(token: string, runId: string): Promise<RunReverted> {
  return request(RunReverted, token, 'POST', `/api/runs/${encodeURIComponent(runId)}/revert`, {});
}

/** The agents that asked for work or worked on a run lately and may take a run of `docId` (RUN7). */
export function listAgents(token: string, docId: string): Promise<AgentView[]> {
  return request(AgentList, token, 'GET', `/api/docs/${encodeURIComponent(docId)}/agents`);
}

/** Cancel run withdraws a queued or claimed run (RUN6); `NOT_CANCELLABLE` (409) in any other state. */
export function cancelRun(token: string, runId: string): Promise<RunCancelled> {
  return request(RunCancelled, token, 'POST', `/api/runs/${encodeURIComponent(runId)}/cancel`, {});
}

/** Undo revert brings a reverted run's changes back (REV14); `UNDO_WINDOW_CLOSED` or `NOT_REVERTED` (409) once it cannot. */
export function undoRevert(token: string, runId: string): Promise<RevertUndone> {
  return request(RevertUndone, token, 'POST', `/api/runs/${encodeURIComponent(runId)}/undo-revert`, {});
}

/** Undo discard puts a discarded run back in review; `UNDO_WINDOW_CLOSED` (409) once it cannot. */
export function undoDiscard(token: string, runId: string): Promise<DiscardUndone> {
  return request(DiscardUndone, token, 'POST', `/api/runs/${encodeURIComponent(runId)}/undo-discard`, {});
}

/**
 * ASIDE1: asks the agent holding run `runId` a side question or steers the run (`steer`, or a
 * text that is no question). Resolves when the agent's answer is done. Fails with
 * `RUN_NOT_ACTIVE` (409) once the run is not being worked on.
 */
export function askAside(token: string, runId: string, text: string, steer: boolean): Promise<AsideAnswer> {
  const body: AsideBody = steer ? { text, steer } : { text, steer: false };
  return request(AsideAnswer, token, 'POST', `/api/runs/${encodeURIComponent(runId)}/asides`, body);
}

/**
 * IMG3: uploads an image file into a document, its bytes as they are; the address it is served
 * at. A refused file throws the server's code and sentence (415 `UNSUPPORTED_IMAGE`, 413
 * `IMAGE_TOO_LARGE`).
 */
export async function uploadImage(token: string, docId: string, file: Blob): Promise<string> {
  let response: Response;
  try {
    response = await fetch(`/api/docs/${encodeURIComponent(docId)}/assets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': file.type || 'application/octet-stream' },
      body: file,
    });
  } catch {
    throw new ApiError('OFFLINE', 'The image cannot be uploaded while the server cannot be reached.');
  }
  const payload: unknown = await response.json().catch(() => null);
  if (!response.ok) throw apiErrorOf(response.status, payload);
  const read = readWire(AssetUploaded, payload);
  if (!read.ok) throw new ApiError('BAD_ANSWER', 'The server answered something this app does not understand.', response.status);
  return read.value.url;
}
