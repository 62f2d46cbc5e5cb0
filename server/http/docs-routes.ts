import type { Hocuspocus } from '@hocuspocus/server';
import type { Claims } from '../../shared/claims.ts';
import { docName, docParts, isDocId, readMeta } from '../../shared/doc-layout.ts';
import { readBlocks, readProseMirrorDoc } from '../../shared/doc-content.ts';
import { docToMarkdown } from '../../shared/markdown.ts';
import { maxTitleLength } from '../../shared/limits.ts';
import { may } from '../auth/roles.ts';
import { createDoc } from '../docs/create-doc.ts';
import { readDocState } from '../docs/read-doc.ts';
import type { DocRecord, Store } from '../store/store.ts';
import { forbidden, notFound } from './api-error.ts';
import type { RouteHandler } from './api.ts';
import { parseNewDoc } from './doc-input.ts';
import { json, text } from './reply.ts';
import type { Router } from './router.ts';

/** The document routes of CONTRACT.md: create, list, read, export as Markdown. */
export function addDocRoutes(router: Router<RouteHandler>, deps: { store: Store; hocuspocus: Hocuspocus }): void {
  const { store, hocuspocus } = deps;

  /** The catalogue record of a document the principal may read; throws 403 or 404. */
  async function readableDoc(principal: Claims, id: string): Promise<DocRecord> {
    if (!may(principal.role, 'docs.read')) throw forbidden();
    if (principal.doc !== undefined && principal.doc !== id) throw forbidden('Your token is for another document.');
    const record = isDocId(id) ? await store.getDoc(id) : null;
    if (!record) throw notFound('There is no document with this id.');
    return record;
  }

  router.add('POST', '/api/docs', async ({ principal, body }) => {
    if (!may(principal.role, 'docs.create') || principal.doc !== undefined) {
      throw forbidden('Only editors may create documents.');
    }
    const record = await createDoc(store, parseNewDoc(await body()));
    return json(201, { id: record.id, title: record.title, kind: record.kind });
  });

  router.add('GET', '/api/docs', async ({ principal }) => {
    if (!may(principal.role, 'docs.read')) throw forbidden();
    const records = await store.listDocs();
    return json(
      200,
      records
        .filter((record) => principal.doc === undefined || record.id === principal.doc)
        .map(({ id, title, kind, updatedAt }) => ({ id, title, kind, updatedAt: new Date(updatedAt).toISOString() })),
    );
  });

  router.add('GET', '/api/docs/:id', async ({ principal, params }) => {
    const record = await readableDoc(principal, params.id);
    const view = await readDocState(hocuspocus, store, docName(record.id), (ydoc) => {
      const title = readMeta(ydoc).title.slice(0, maxTitleLength) || record.title;
      return record.kind === 'page'
        ? { title, html: docParts(ydoc).html.toString() }
        : { title, blocks: readBlocks(ydoc) };
    });
    const { title, ...content } = view;
    return json(200, { id: record.id, title, kind: record.kind, ...content, annotations: [], runs: [] });
  });

  router.add('GET', '/api/docs/:id/markdown', async ({ principal, params }) => {
    const record = await readableDoc(principal, params.id);
    const markdown = await readDocState(hocuspocus, store, docName(record.id), (ydoc) =>
      record.kind === 'page'
        ? fence('html', docParts(ydoc).html.toString())
        : docToMarkdown(readProseMirrorDoc(ydoc)),
    );
    return text(200, markdown, 'text/markdown; charset=utf-8');
  });
}

/** `source` as a fenced code block whose fence is longer than any backtick run inside. */
function fence(info: string, source: string): string {
  const longest = Math.max(2, ...(source.match(/`+/g) ?? []).map((run) => run.length));
  const marks = '`'.repeat(longest + 1);
  return `${marks}${info}\n${source}${source.endsWith('\n') ? '' : '\n'}${marks}\n`;
}
