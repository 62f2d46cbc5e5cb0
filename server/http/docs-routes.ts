import type { Hocuspocus } from '@hocuspocus/server';
import type { Claims } from '../../shared/protocol/claims.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import { countedTitle, shownTitle } from '../../shared/model/doc-title.ts';
import { maxTitleLength } from '../../shared/protocol/limits.ts';
import { coversDoc, may, mayCreateDocs } from '../../shared/protocol/permissions.ts';
import { readAnnotationViews } from '../docs/annotation-views.ts';
import { createDoc } from '../docs/create-doc.ts';
import { docMarkdown } from '../docs/doc-markdown.ts';
import { readDocState } from '../docs/read-doc.ts';
import { toRunRecord } from '../store/run-store.ts';
import type { Store } from '../store/store.ts';
import { recordAudit, recordRead } from '../audit/record-audit.ts';
import { forbidden } from './api-error.ts';
import type { CreatedDoc, DocSummary, DocView } from '../../shared/wire/docs.ts';
import { readableDoc } from './doc-access.ts';
import type { RouteHandler } from './api.ts';
import { parseNewDoc } from './doc-input.ts';
import { pageAnswerOf } from '../pages/page-work.ts';
import { pageSource } from '../../shared/page/page-source.ts';
import { textBlocksJson, textMarkdown } from '../docs/text-views.ts';
import { rawBlocks } from '../raw-json.ts';
import { json, text } from './reply.ts';
import { workPool } from '../work/work-pool.ts';
import { listTrash, maxSearchResults, readListQuery } from './catalogue-routes.ts';
import { searchWords } from '../store/doc-search.ts';
import type { Router } from './router.ts';
import type { AgentRoster } from '../runs/agent-roster.ts';

/** The document routes of docs/api.md: create, list, read, export as Markdown. */
export function addDocRoutes(router: Router<RouteHandler>, deps: { store: Store; hocuspocus: Hocuspocus; roster: AgentRoster }): void {
  const { store, hocuspocus } = deps;

  const readable = (principal: Claims, id: string) => readableDoc(store, principal, id);

  router.add('POST', '/api/docs', async ({ principal, body }) => {
    if (!mayCreateDocs(principal)) {
      throw forbidden('Only editors may create documents.');
    }
    const input = parseNewDoc(await body());
    const record = await createDoc(store, input, Date.now(), undefined, { subject: principal.sub, name: principal.name });
    await recordAudit(store.audit, principal, 'doc.created', record.id);
    // CAT6: nothing of the Markdown is dropped silently; `warnings` comes only with something to say.
    const warnings = input.kind === 'text' && input.markdown ? await workPool().run('markdownWarnings', input.markdown) : [];
    // The title as given: the catalogue's may be the first line (CAT1).
    const created: CreatedDoc = { id: record.id, title: input.title, kind: record.kind, ...(warnings.length ? { warnings } : {}) };
    return json(201, created);
  });

  // CAT2, CAT3: `?q=` searches the index; `?trash=1` lists the trash (editors).
  router.add('GET', '/api/docs', async ({ principal, url }) => {
    if (!may(principal.role, 'doc.read')) throw forbidden();
    const query = readListQuery(url.searchParams);
    if (query.trash) return json(200, await listTrash(store, principal));
    const records = query.q?.trim() ? await store.search.search(searchWords(query.q), maxSearchResults) : await store.listDocs();
    const list: DocSummary[] = records
      .filter((record) => coversDoc(principal, record.id))
      .map(({ id, title, kind, updatedAt }) => ({ id, title: countedTitle(title), kind, updatedAt: new Date(updatedAt).toISOString() }));
    return json(200, list);
  });

  router.add('GET', '/api/docs/:id', async ({ principal, params }) => {
    const record = await readable(principal, params.id);
    // A text document's title and blocks are read in the work pool (LIMIT10): reading its Y.Doc here would cost the event loop its size.
    const read =
      record.kind === 'page'
        ? readDocState(hocuspocus, store, docName(record.id), (ydoc) => ({ title: shownTitle(ydoc), source: pageSource(ydoc) })).then(
            async ({ title, source }) => ({ title, content: await pageAnswerOf(source) }),
          )
        : textBlocksJson(hocuspocus, store, docName(record.id)).then(({ title, blocks }) => ({ title, content: { blocks: rawBlocks(blocks) } }));
    const [{ title: heldTitle, content }, annotations, runs] = await Promise.all([
      read,
      readAnnotationViews(hocuspocus, store, record.id),
      store.runs.listRuns(record.id),
    ]);
    const title = heldTitle.slice(0, maxTitleLength) || countedTitle(record.title);
    const answer: DocView = { id: record.id, title, kind: record.kind, ...content, annotations, runs: runs.map(toRunRecord), agents: await deps.roster.list(record.id) };
    await recordRead(store.audit, principal, record.id);
    return json(200, answer);
  });

  // RUN7: who would take a run of the document now; the app asks it every few seconds, and it reads nothing of the document.
  router.add('GET', '/api/docs/:id/agents', async ({ principal, params }) => {
    const record = await readable(principal, params.id);
    return json(200, await deps.roster.list(record.id));
  });

  router.add('GET', '/api/docs/:id/markdown', async ({ principal, params }) => {
    const record = await readable(principal, params.id);
    const markdown =
      record.kind === 'page'
        ? await readDocState(hocuspocus, store, docName(record.id), (ydoc) => docMarkdown(record.kind, ydoc))
        : await textMarkdown(hocuspocus, store, docName(record.id));
    await recordRead(store.audit, principal, record.id);
    return text(200, markdown, 'text/markdown; charset=utf-8');
  });
}

