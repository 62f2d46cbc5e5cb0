import { Rejection } from '../../shared/protocol/rejection.ts';
import type { Hocuspocus } from '@hocuspocus/server';
import { isRecordId } from '../../shared/notes/annotations.ts';
import { may } from '../../shared/protocol/permissions.ts';
import type { RunServices } from '../runs/run-services.ts';
import { parseDiscardReason, pinDiscardReason } from '../runs/discard-reason.ts';
import { sendRun } from '../runs/send-run.ts';
import { toRunRecord } from '../store/run-store.ts';
import type { Store } from '../store/store.ts';
import { recordAudit, recordRead } from '../audit/record-audit.ts';
import { forbidden, notFound } from './api-error.ts';
import { ChooseVariantBody, runItemView, type ItemDecided, type RunDecision, type RunPreview, type SentRun, type VariantChosen } from '../../shared/wire/runs.ts';
import { readInput } from '../read-input.ts';
import type { RouteHandler } from './api.ts';
import { readableDoc } from './doc-access.ts';
import { json } from './reply.ts';
import { readCandidate } from '../pages/page-runs.ts';
import type { Router } from './router.ts';
import type { VersionService } from '../versions/versions.ts';
import type { Claims } from '../../shared/protocol/claims.ts';
import type { VersionReason } from '../../shared/wire/versions.ts';

/**
 * Send (`POST /api/docs/:id/runs`), reading a run (`GET /api/runs/:runId`) and review
 * (`POST /api/runs/:runId/accept`, `/discard {reason?}`, and per item
 * `/items/:instructionId/accept`, `/discard {reason?}`, through the ReviewService; a discard's
 * reason becomes draft instructions, server/runs/discard-reason.ts), and taking a decision back
 * (`/revert`, `/undo-revert`, `/undo-discard`, through the RevertService), and withdrawing a run before review
 * (`/cancel`, through the CancelService).
 */
export function addRunRoutes(
  router: Router<RouteHandler>,
  deps: { store: Store; hocuspocus: Hocuspocus; runs: Pick<RunServices, 'review' | 'revert' | 'cancel'>; versions: Pick<VersionService, 'record'> },
): void {
  const { store, runs } = deps;
  // HIST1: every decision is kept as a version of the text it left.
  const versionAt = (principal: Claims, docId: string, reason: VersionReason) => deps.versions.record(docId, reason, principal.name);

  router.add('POST', '/api/docs/:id/runs', async ({ principal, params }) => {
    const doc = await readableDoc(store, principal, params.id);
    if (!may(principal.role, 'run.send')) throw forbidden('Only editors may send instructions to the agent.');
    const result = await sendRun(deps, doc, { id: principal.sub, name: principal.name });
    if (result.ok) {
      await recordAudit(store.audit, principal, 'run.sent', doc.id, result.run.id);
      const sent: SentRun = { runId: result.run.id, items: result.run.items.map(runItemView) };
      return json(201, sent);
    }
    if (result.code === 'NOTHING_TO_SEND') {
      throw new Rejection(422, 'NOTHING_TO_SEND', 'No instruction is ready to send: create one, or mark a draft as ready.');
    }
    const outstanding = await store.runs.outstandingRun(doc.id);
    throw new Rejection(
      409,
      'RUN_OUTSTANDING',
      'This document already has a run that is queued, being worked on or waiting for review; it must be accepted, discarded or fail before the next send.',
      outstanding ? { runId: outstanding.id } : {},
    );
  });

  router.add('GET', '/api/runs/:runId', async ({ principal, params }) => {
    if (!may(principal.role, 'doc.read')) throw forbidden();
    const run = isRecordId(params.runId) ? await store.runs.getRun(params.runId) : null;
    if (!run) throw notFound('There is no run with this id.');
    await readableDoc(store, principal, run.docId);
    await recordRead(store.audit, principal, run.docId);
    return json(200, toRunRecord(run));
  });

  router.add('GET', '/api/runs/:runId/preview', async ({ principal, params }) => {
    if (!may(principal.role, 'doc.read')) throw forbidden();
    const run = isRecordId(params.runId) ? await store.runs.getRun(params.runId) : null;
    if (!run) throw notFound('There is no run with this id.');
    const doc = await readableDoc(store, principal, run.docId);
    if (doc.kind !== 'page') throw new Rejection(422, 'NOT_A_PAGE', 'Only a run over a page has a preview; read a text run with GET /api/runs/:runId.');
    const preview: RunPreview = { html: await readCandidate(deps, run) };
    await recordRead(store.audit, principal, doc.id);
    return json(200, preview);
  });

  router.add('POST', '/api/runs/:runId/accept', async ({ principal, params }) => {
    const { state } = await runs.review.decide(principal, params.runId, 'accepted');
    const run = await store.runs.getRun(params.runId);
    if (run) {
      await recordAudit(store.audit, principal, 'run.accepted', run.docId, run.id);
      await versionAt(principal, run.docId, 'run-accepted');
    }
    const answer: RunDecision = { state };
    return json(200, answer);
  });

  // A reason is checked before anything changes; its drafts are made once the discard is done,
  // for the items this discard decided only.
  router.add('POST', '/api/runs/:runId/discard', async ({ principal, params, body }) => {
    if (!may(principal.role, 'run.decide')) throw forbidden('Only editors may accept or discard a run.');
    const reason = parseDiscardReason(await body({ optional: true }));
    const { state, decidedIds } = await runs.review.decide(principal, params.runId, 'discarded');
    const run = await store.runs.getRun(params.runId);
    if (!run) return json(200, { state });
    await recordAudit(store.audit, principal, 'run.discarded', run.docId, run.id);
    await versionAt(principal, run.docId, 'run-discarded');
    if (reason === null) return json(200, { state });
    const draftIds = await pinDiscardReason(deps, run, reason, { id: principal.sub, name: principal.name }, new Set(decidedIds));
    const answer: RunDecision = { state, draftIds };
    return json(200, answer);
  });

  // REV12: one item at a time; the run leaves review once every item is decided.
  router.add('POST', '/api/runs/:runId/items/:instructionId/accept', async ({ principal, params }) => {
    const { state, item } = await runs.review.decideItem(principal, params.runId, params.instructionId, 'accepted');
    const run = await store.runs.getRun(params.runId);
    if (run) {
      await recordAudit(store.audit, principal, 'run.item-accepted', run.docId, run.id);
      await versionAt(principal, run.docId, 'run-accepted');
    }
    const answer: ItemDecided = { state, item };
    return json(200, answer);
  });

  router.add('POST', '/api/runs/:runId/items/:instructionId/discard', async ({ principal, params, body }) => {
    if (!may(principal.role, 'run.decide')) throw forbidden('Only editors may accept or discard a run.');
    const reason = parseDiscardReason(await body({ optional: true }));
    const { state, item } = await runs.review.decideItem(principal, params.runId, params.instructionId, 'discarded');
    const run = await store.runs.getRun(params.runId);
    const answer: ItemDecided = { state, item };
    if (!run) return json(200, answer);
    await recordAudit(store.audit, principal, 'run.item-discarded', run.docId, run.id);
    await versionAt(principal, run.docId, 'run-discarded');
    if (reason === null) return json(200, answer);
    answer.draftIds = await pinDiscardReason(deps, run, reason, { id: principal.sub, name: principal.name }, new Set([item.instructionId]));
    return json(200, answer);
  });

  // VAR2: the text shows another candidate of an item with variants, for everyone.
  router.add('POST', '/api/runs/:runId/items/:instructionId/choose', async ({ principal, params, body }) => {
    if (!may(principal.role, 'run.decide')) throw forbidden('Only editors may choose a variant.');
    const { variant } = readInput(ChooseVariantBody, await body());
    const item = await runs.review.chooseVariant(principal, params.runId, params.instructionId, variant);
    const run = await store.runs.getRun(params.runId);
    if (run) await recordAudit(store.audit, principal, 'run.variant-chosen', run.docId, run.id);
    const answer: VariantChosen = { item };
    return json(200, answer);
  });

  router.add('POST', '/api/runs/:runId/cancel', async ({ principal, params }) => {
    const cancelled = await runs.cancel.cancel(principal, params.runId);
    const run = await store.runs.getRun(params.runId);
    if (run) await recordAudit(store.audit, principal, 'run.cancelled', run.docId, run.id);
    return json(200, cancelled);
  });

  router.add('POST', '/api/runs/:runId/revert', async ({ principal, params }) => {
    const reverted = await runs.revert.revert(principal, params.runId);
    const run = await store.runs.getRun(params.runId);
    if (run) {
      await recordAudit(store.audit, principal, 'run.reverted', run.docId, run.id);
      await versionAt(principal, run.docId, 'run-reverted');
    }
    return json(200, reverted);
  });

  router.add('POST', '/api/runs/:runId/undo-revert', async ({ principal, params }) => {
    const restored = await runs.revert.undoRevert(principal, params.runId);
    const run = await store.runs.getRun(params.runId);
    if (run) await recordAudit(store.audit, principal, 'run.revert-undone', run.docId, run.id);
    return json(200, restored);
  });

  router.add('POST', '/api/runs/:runId/undo-discard', async ({ principal, params }) => {
    const reopened = await runs.revert.undoDiscard(principal, params.runId);
    const run = await store.runs.getRun(params.runId);
    if (run) await recordAudit(store.audit, principal, 'run.discard-undone', run.docId, run.id);
    return json(200, reopened);
  });
}
