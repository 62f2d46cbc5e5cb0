import { Rejection } from '../../shared/protocol/rejection.ts';
import type { Hocuspocus } from '@hocuspocus/server';
import { isRecordId } from '../../shared/notes/annotations.ts';
import { createAnnotation, escalateComment, type AnnotationError } from '../../shared/notes/annotations-writers.ts';
import { anchorForBlock } from '../../shared/model/anchors.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import { serverOrigin } from '../../shared/model/origins.ts';
import { may } from '../../shared/protocol/permissions.ts';
import { readDocState } from '../docs/read-doc.ts';
import { withDocument } from '../docs/with-document.ts';
import { recordAudit } from '../audit/record-audit.ts';
import type { Store } from '../store/store.ts';
import { forbidden, notFound } from './api-error.ts';
import type { RouteHandler } from './api.ts';
import { parseNewAnnotation, parseNewPageAnnotation } from './annotation-input.ts';
import { anchorForElement } from '../pages/page-pin.ts';
import { readableDoc } from './doc-access.ts';
import type { CreatedId } from '../../shared/wire/docs.ts';
import { json } from './reply.ts';
import type { Router } from './router.ts';

/**
 * The annotation routes of docs/api.md. The server writes into `<id>/notes` with its own
 * origin, in the principal's name; a refused request stores nothing.
 */
export function addAnnotationRoutes(router: Router<RouteHandler>, deps: { store: Store; hocuspocus: Hocuspocus }): void {
  const { store, hocuspocus } = deps;

  router.add('POST', '/api/docs/:id/annotations', async ({ principal, params, body }) => {
    const doc = await readableDoc(store, principal, params.id);
    if (!may(principal.role, 'notes.comment')) throw forbidden('Only editors and commenters may annotate a document.');
    const given = await body();
    const input = doc.kind === 'page' ? parseNewPageAnnotation(given) : parseNewAnnotation(given);
    if (input.kind === 'instruction' && !may(principal.role, 'notes.instruct')) {
      throw forbidden('Only editors may create instructions; commenters may comment.');
    }
    const pin =
      'elementId' in input
        ? isRecordId(input.elementId)
          ? await anchorForElement((read) => readDocState(hocuspocus, store, docName(doc.id), read), input.elementId)
          : null
        : await readDocState(hocuspocus, store, docName(doc.id), (ydoc) => (isRecordId(input.blockId) ? anchorForBlock(ydoc, input.blockId) : null));
    if (!pin && 'elementId' in input) throw new Rejection(422, 'UNKNOWN_ELEMENT', 'The page has no element with this elementId.');
    if (!pin) throw new Rejection(422, 'UNKNOWN_BLOCK', 'The document has no block with this blockId.');
    const result = await withDocument(hocuspocus, docName(doc.id, 'notes'), (notes) =>
      createAnnotation(
        notes,
        {
          kind: input.kind,
          anchor: pin.anchor,
          blockId: pin.blockId,
          quote: pin.quote,
          author: { id: principal.sub, name: principal.name },
          text: input.text,
          now: Date.now(),
          ...(input.kind === 'instruction' && input.variants !== undefined ? { variants: input.variants } : {}),
        },
        serverOrigin,
      ),
    );
    if (!result.ok) throw refusal(result.error);
    await store.annotationDocs.add(doc.id, [result.id]);
    await recordAudit(store.audit, principal, 'annotation.created', doc.id);
    return json(201, { id: result.id } satisfies CreatedId);
  });

  router.add('POST', '/api/annotations/:id/escalate', async ({ principal, params }) => {
    if (!may(principal.role, 'notes.instruct')) throw forbidden('Only editors may turn a comment into an instruction.');
    const docId = isRecordId(params.id) ? await store.annotationDocs.docOf(params.id) : null;
    if (docId === null) throw notFound('There is no annotation with this id.');
    const doc = await readableDoc(store, principal, docId);
    const result = await withDocument(hocuspocus, docName(doc.id, 'notes'), (notes) =>
      escalateComment(notes, params.id, { id: principal.sub, name: principal.name }, Date.now(), serverOrigin),
    );
    if (!result.ok) throw refusal(result.error);
    await store.annotationDocs.add(doc.id, [result.id]);
    await recordAudit(store.audit, principal, 'annotation.created', doc.id);
    return json(201, { id: result.id } satisfies CreatedId);
  });
}

/** A writer's refusal as an API error: 404 for a missing annotation, else 422 with its code. */
function refusal(error: AnnotationError): Rejection {
  if (error.code === 'NOT_FOUND') return notFound('There is no annotation with this id.');
  return new Rejection(422, error.code, error.message);
}
