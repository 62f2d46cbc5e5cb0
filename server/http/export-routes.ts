import type { Hocuspocus } from '@hocuspocus/server';
import { Node } from 'prosemirror-model';
import { docName } from '../../shared/model/doc-layout.ts';
import { shownTitle } from '../../shared/model/doc-title.ts';
import { changeContent } from '../../shared/model/doc-content.ts';
import { importOrigin } from '../../shared/model/origins.ts';
import { schema } from '../../shared/model/schema.ts';
import { coversDoc, may } from '../../shared/protocol/permissions.ts';
import { Rejection } from '../../shared/protocol/rejection.ts';
import { pageSource } from '../../shared/page/page-source.ts';
import { ImportBody, type ImportAnswer } from '../../shared/wire/catalogue.ts';
import { maxSourceBytes } from '../../shared/protocol/limits.ts';
import { utf8Length } from '../../shared/wire/parse.ts';
import { recordRead } from '../audit/record-audit.ts';
import { htmlPage } from '../docs/doc-html.ts';
import { readDocState } from '../docs/read-doc.ts';
import { textDocx, textHtml } from '../docs/text-views.ts';
import { withDocument } from '../docs/with-document.ts';
import { pageViewOf } from '../pages/page-work.ts';
import { readInput } from '../read-input.ts';
import type { Store } from '../store/store.ts';
import type { ClientOwners } from '../authorship/client-owners.ts';
import { writeAsPerson } from '../authorship/person-writes.ts';
import { workPool } from '../work/work-pool.ts';
import { forbidden } from './api-error.ts';
import type { RouteHandler } from './api.ts';
import { readableDoc } from './doc-access.ts';
import { bytes, json, text } from './reply.ts';
import type { Router } from './router.ts';

const docxType = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/**
 * An exported page runs nothing and loads nothing but images, even opened straight from the
 * server: its markup is written or sanitized already, this is the second fence.
 */
const exportPolicy = "default-src 'none'; img-src http: https: data:; style-src 'unsafe-inline'; sandbox";

/** CAT5 and CAT6: a document as HTML and as a Word document; Markdown or HTML imported into one. */
export function addExportRoutes(router: Router<RouteHandler>, deps: { store: Store; hocuspocus: Hocuspocus; owners: ClientOwners }): void {
  const { store, hocuspocus, owners } = deps;

  router.add('GET', '/api/docs/:id/html', async ({ principal, params }) => {
    const record = await readableDoc(store, principal, params.id);
    const name = docName(record.id);
    let html: string;
    if (record.kind === 'page') {
      const { title, source } = await readDocState(hocuspocus, store, name, (ydoc) => ({ title: shownTitle(ydoc), source: pageSource(ydoc) }));
      html = htmlPage(title, (await pageViewOf(source)).html);
    } else {
      html = await textHtml(hocuspocus, store, name, record.id);
    }
    await recordRead(store.audit, principal, record.id);
    return text(200, html, 'text/html; charset=utf-8', { 'Content-Security-Policy': exportPolicy });
  });

  router.add('GET', '/api/docs/:id/docx', async ({ principal, params }) => {
    const record = await readableDoc(store, principal, params.id);
    const name = docName(record.id);
    const file =
      record.kind === 'page'
        ? await readDocState(hocuspocus, store, name, (ydoc) => ({ title: shownTitle(ydoc), source: pageSource(ydoc) })).then((input) =>
            workPool().run('pageDocx', input),
          )
        : await textDocx(hocuspocus, store, name, record.id);
    await recordRead(store.audit, principal, record.id);
    return bytes(200, file, docxType, { 'Content-Disposition': `attachment; filename="${record.id}.docx"` });
  });

  router.add('POST', '/api/docs/:id/import', async ({ principal, params, body }) => {
    const record = await readableDoc(store, principal, params.id);
    if (!may(principal.role, 'text.write') || !coversDoc(principal, record.id)) throw forbidden('Only editors may import into a document.');
    if (record.kind === 'page') throw new Rejection(422, 'NOT_A_TEXT_DOCUMENT', 'Import works on text documents; a page takes its HTML when it is made.');
    const input = readInput(ImportBody, await body());
    if (utf8Length(input.source) > maxSourceBytes) throw new Rejection(413, 'BODY_TOO_LARGE', `source must be at most ${maxSourceBytes} bytes.`);
    const parsed = await workPool().run('importSource', input);
    const imported = Node.fromJSON(schema, parsed.doc);
    await withDocument(hocuspocus, docName(record.id), (ydoc) =>
      writeAsPerson(owners, ydoc, record.id, { subject: principal.sub, name: principal.name }, () =>
        changeContent(ydoc, (doc) => doc.copy(isBlank(doc) ? imported.content : doc.content.append(imported.content)), importOrigin),
      ),
    );
    const answer: ImportAnswer = { blocks: imported.childCount, warnings: parsed.warnings };
    return json(200, answer);
  });
}

/** A document with nothing typed in it: what an import replaces instead of adding to. */
function isBlank(doc: Node): boolean {
  const first = doc.firstChild;
  return first === null || (doc.childCount === 1 && first.type.name === 'paragraph' && first.content.size === 0);
}
