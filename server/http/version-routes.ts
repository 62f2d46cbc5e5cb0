import { Rejection } from '../../shared/protocol/rejection.ts';
import { may } from '../../shared/protocol/permissions.ts';
import { isRecordId } from '../../shared/notes/annotations.ts';
import { readWire } from '../../shared/wire/parse.ts';
import { NameVersionBody, type VersionComparison, type VersionList, type VersionRecorded } from '../../shared/wire/versions.ts';
import { recordAudit, recordRead } from '../audit/record-audit.ts';
import type { StoredVersion } from '../store/version-book.ts';
import type { Store } from '../store/store.ts';
import type { VersionService } from '../versions/versions.ts';
import { forbidden, invalidBody, notFound } from './api-error.ts';
import type { RouteHandler } from './api.ts';
import { readableDoc } from './doc-access.ts';
import { json, text } from './reply.ts';
import type { Router } from './router.ts';

const noSuchVersion = () => notFound('This document has no version with this id.');

/**
 * Version history (HIST1–HIST5): list a document's versions, name one, read one as Markdown,
 * compare two (or one with the current text) and restore one. Reading is for whoever may read
 * the document; naming and restoring for editors.
 */
export function addVersionRoutes(router: Router<RouteHandler>, deps: { store: Store; versions: VersionService }): void {
  const { store, versions } = deps;

  router.add('GET', '/api/docs/:id/versions', async ({ principal, params }) => {
    const record = await readableDoc(store, principal, params.id);
    const list: VersionList = (await versions.list(record.id)).map(versionView);
    await recordRead(store.audit, principal, record.id);
    return json(200, list);
  });

  router.add('POST', '/api/docs/:id/versions', async ({ principal, params, body }) => {
    const record = await readableDoc(store, principal, params.id);
    if (!may(principal.role, 'text.write')) throw forbidden('Only editors may name a version.');
    const read = readWire(NameVersionBody, await body());
    if (!read.ok) throw invalidBody(`A version needs a name of 1 to 200 characters: ${read.problem.message}`);
    const version = await versions.record(record.id, 'named', principal.name, read.value.name);
    await recordAudit(store.audit, principal, 'version.named', record.id);
    return json(201, { versionId: version.id } satisfies VersionRecorded);
  });

  router.add('GET', '/api/docs/:id/versions/:versionId/markdown', async ({ principal, params }) => {
    const record = await readableDoc(store, principal, params.id);
    const markdown = isRecordId(params.versionId) ? await versions.markdown(record.id, record.kind, params.versionId) : null;
    if (markdown === null) throw noSuchVersion();
    await recordRead(store.audit, principal, record.id);
    return text(200, markdown, 'text/markdown; charset=utf-8');
  });

  router.add('GET', '/api/docs/:id/compare', async ({ principal, params, url }) => {
    const record = await readableDoc(store, principal, params.id);
    const from = url.searchParams.get('from');
    const to = url.searchParams.get('to') ?? 'current';
    if (!isRecordId(from) || (to !== 'current' && !isRecordId(to))) {
      throw new Rejection(400, 'BAD_QUERY', 'Say which versions to compare: ?from=VERSION&to=VERSION, or to=current for the text as it is.');
    }
    const changes = await versions.compare(record.id, from, to);
    if (changes === null) throw noSuchVersion();
    await recordRead(store.audit, principal, record.id);
    return json(200, { changes } satisfies VersionComparison);
  });

  router.add('POST', '/api/docs/:id/versions/:versionId/restore', async ({ principal, params }) => {
    const record = await readableDoc(store, principal, params.id);
    if (!may(principal.role, 'text.write')) throw forbidden('Only editors may restore a version.');
    const restored = isRecordId(params.versionId) ? await versions.restore(record.id, params.versionId, principal.name) : null;
    if (!restored) throw noSuchVersion();
    await recordAudit(store.audit, principal, 'version.restored', record.id);
    return json(200, { versionId: restored.id } satisfies VersionRecorded);
  });
}

function versionView(version: StoredVersion): VersionList[number] {
  return {
    versionId: version.id,
    name: version.name,
    reason: version.reason,
    createdAt: new Date(version.createdAt).toISOString(),
    by: { name: version.byName },
  };
}
