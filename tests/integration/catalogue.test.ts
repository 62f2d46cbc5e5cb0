import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectPeer, waitFor } from '../helpers/peer.ts';
import { appendToBlock } from '../helpers/doc-builder.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { postgresSchemas } from '../helpers/pg-schema.ts';
import { openSqliteStore } from '../../server/store/sqlite-store.ts';
import { openPostgresStore } from '../../server/store/pg-store.ts';
import type { Store } from '../../server/store/store.ts';

/*
 * The catalogue (shared/PROTOCOL.md CAT1–CAT4) over HTTP on both backends: titles that follow
 * the text, search through the store's index, the trash and its restore, duplicates; each
 * route's refusals by role and `--doc` token.
 */

const postgres = postgresSchemas();
const backends = [
  { name: 'SQLite', databaseUrl: async () => undefined },
  { name: 'PostgreSQL', databaseUrl: async () => postgres.fresh() },
];
const day = 24 * 60 * 60 * 1000;

describe.each(backends)('the catalogue of documents ($name)', (backend) => {
  let server: TestServer;
  let databaseUrl: string | undefined;
  beforeAll(async () => {
    if (backend.name === 'PostgreSQL') await postgres.setUp();
    databaseUrl = await backend.databaseUrl();
    server = await startTestServer({ databaseUrl });
    // With TANDEM_TEST_STORE=postgres the server of the SQLite variant runs on PostgreSQL too.
    databaseUrl = server.databaseUrl ?? undefined;
  });
  const peers: { destroy(): void }[] = [];
  const track = <T extends { destroy(): void }>(peer: T): T => (peers.push(peer), peer);
  afterEach(() => {
    for (const peer of peers.splice(0)) peer.destroy();
  });
  afterAll(async () => {
    await server?.dispose();
    if (backend.name === 'PostgreSQL') await postgres.tearDown();
  });

  /** The store of the running server's data, opened beside it (both backends allow a second handle). */
  async function sideStore(): Promise<Store> {
    return databaseUrl ? openPostgresStore(databaseUrl) : openSqliteStore(server.dataDir);
  }
  const list = async (query = '', token?: string) => server.api(`/api/docs${query}`, { token });
  const ids = async (query = '', token?: string) => ((await list(query, token)).body as { id: string }[]).map((doc) => doc.id);
  const trash = (id: string, token?: string | null) => server.api(`/api/docs/${id}`, { method: 'DELETE', token });
  const restore = (id: string, token?: string) => server.api(`/api/docs/${id}/restore`, { method: 'POST', token });
  const duplicate = (id: string, token?: string) => server.api(`/api/docs/${id}/duplicate`, { method: 'POST', token });
  const actionsOf = async (id: string) =>
    ((await server.api(`/api/docs/${id}/audit`)).body.entries as { action: string }[]).map((entry) => entry.action).filter((action) => action !== 'doc.read');

  it('[CAT1] names a document without a title by its first line, and by its title once one is set', async () => {
    const id = await server.createDoc('', 'Seed catalogue\n\nmore text');
    expect((await server.api(`/api/docs/${id}`)).body.title).toBe('Seed catalogue');
    const legacy = await server.createDoc('Untitled', 'Quince jam');
    expect((await server.api(`/api/docs/${legacy}`)).body.title).toBe('Quince jam');
    expect(((await list()).body as { id: string; title: string }[]).find((doc) => doc.id === legacy)?.title).toBe('Quince jam');
    expect(((await list()).body as { id: string; title: string }[]).find((doc) => doc.id === id)?.title).toBe('Seed catalogue');
    const empty = await server.createDoc('Untitled', '');
    expect(((await list()).body as { id: string; title: string }[]).find((doc) => doc.id === empty)?.title).toBe('');
    const named = await server.createDoc('Named', 'Other words');
    expect((await server.api(`/api/docs/${named}`)).body.title).toBe('Named');
  });

  it('[CAT2] finds documents by words of their title and text, as prefixes, best match first', async () => {
    const inTitle = await server.createDoc('Walnut orchard', 'trees');
    const inText = await server.createDoc('Notes', 'The walnut harvest is late.');
    await server.createDoc('Other', 'nothing here');
    expect(await ids('?q=walnut')).toEqual([inTitle, inText]);
    expect(await ids('?q=WALN')).toEqual([inTitle, inText]);
    expect(await ids('?q=walnut%20harvest')).toEqual([inText]);
    expect(await ids('?q=%22walnut%22%20NOT%20zz*')).toEqual([]);
    expect(await ids('?q=zzzunknown')).toEqual([]);
    expect(await ids('?q=%20%20')).toEqual(await ids());
  });

  it('[CAT2] finds what people typed once the document is stored, without reading Y.Docs per query', async () => {
    const id = await server.createDoc('Typed', 'start');
    const peer = track(connectPeer({ wsUrl: server.wsUrl, name: id, token: server.ownerToken }));
    await peer.synced;
    appendToBlock(peer.ydoc, 0, ' pomegranate');
    await waitFor(async () => (await ids('?q=pomegranate')).includes(id), 15_000, 200);
  });

  it('[CAT2] refuses a malformed query and lists for a --doc token only its document', async () => {
    expect((await list(`?q=${'a'.repeat(201)}`)).body.error.code).toBe('INVALID_QUERY');
    expect((await list('?q=a&q=b')).status).toBe(400);
    expect((await list('?q=a&trash=1')).status).toBe(400);
    expect((await list('?trash=yes')).status).toBe(400);
    const id = await server.createDoc('Scoped hazelnut', '');
    await server.createDoc('Other hazelnut', '');
    expect(await ids('?q=hazelnut', server.token('viewer', { doc: id }))).toEqual([id]);
  });

  it('[CAT3] moves a document to the trash, where it is listed, unopenable, unsearchable, and restorable', async () => {
    const id = await server.createDoc('Cherry', 'cherry blossom');
    const trashed = await trash(id);
    expect(trashed.status).toBe(200);
    expect(trashed.body.id).toBe(id);
    expect(Date.parse(trashed.body.purgeAt) - Date.parse(trashed.body.deletedAt)).toBe(30 * day);
    expect(await ids()).not.toContain(id);
    expect(await ids('?q=cherry')).toEqual([]);
    expect((await list('?trash=1')).body).toContainEqual(expect.objectContaining({ id, title: 'Cherry', deletedAt: trashed.body.deletedAt }));
    for (const path of [`/api/docs/${id}`, `/api/docs/${id}/markdown`]) {
      expect((await server.api(path)).body.error.code).toBe('IN_TRASH');
    }
    expect((await server.api(`/api/docs/${id}`)).status).toBe(410);
    expect((await trash(id)).status).toBe(410);
    const peer = track(connectPeer({ wsUrl: server.wsUrl, name: id, token: server.ownerToken }));
    expect(await peer.authenticationFailed).toBe('Unknown document');

    expect((await restore(id)).body).toEqual({ id });
    expect(await ids()).toContain(id);
    expect(await ids('?q=cherry')).toEqual([id]);
    expect((await restore(id)).body.error.code).toBe('NOT_IN_TRASH');
    expect(await actionsOf(id)).toEqual(['doc.restored', 'doc.trashed', 'doc.created']);
  });

  it('[CAT3] closes the connections of a document moved to the trash', async () => {
    const id = await server.createDoc('Open', 'text');
    const peer = track(connectPeer({ wsUrl: server.wsUrl, name: id, token: server.ownerToken }));
    await peer.synced;
    let closed = false;
    peer.provider.on('close', () => (closed = true));
    expect((await trash(id)).status).toBe(200);
    await waitFor(() => closed);
  });

  it('[CAT3] refuses to restore after 30 days, and the purge removes the document for good', async () => {
    const id = await server.createDoc('Old', 'ancient medlar');
    const kept = await server.createDoc('Recent', 'recent medlar');
    await trash(id);
    await trash(kept);
    const store = await sideStore();
    try {
      const old = Date.now() - 31 * day;
      await waitFor(async () => (await store.getDoc(id))?.deletedAt !== null);
      // Back-dated from behind the server's back, as 31 days would leave it.
      await (databaseUrl ? rawUpdate(databaseUrl, id, old) : sqliteUpdate(server.dataDir, id, old));
      expect((await restore(id)).body.error.code).toBe('TRASH_EXPIRED');
      expect(await store.purgeTrash(Date.now() - 30 * day)).toEqual([id]);
      expect(await store.getDoc(id)).toBeNull();
      expect(await store.loadState(id)).toBeNull();
      expect((await server.api(`/api/docs/${id}`)).status).toBe(404);
      expect((await restore(id)).status).toBe(404);
      expect((await list('?trash=1')).body.map((doc: { id: string }) => doc.id)).toContain(kept);
    } finally {
      await store.close();
    }
  });

  it('[CAT3] lets only editors trash and restore, a --doc token only its document', async () => {
    const id = await server.createDoc('Guarded', 'x');
    const other = await server.createDoc('Elsewhere', 'x');
    for (const role of ['viewer', 'commenter', 'agent'] as const) {
      expect((await trash(id, server.token(role))).status, role).toBe(403);
      expect((await list('?trash=1', server.token(role))).status, role).toBe(403);
    }
    expect((await trash(other, server.token('editor', { doc: id }))).status).toBe(403);
    expect((await trash('nosuchdoc')).status).toBe(404);
    expect((await trash(id, null)).status).toBe(401);
    expect((await trash(id, server.token('editor', { doc: id }))).status).toBe(200);
    expect(await ids('?trash=1', server.token('editor', { doc: other }))).toEqual([]);
    expect((await restore(id, server.token('commenter'))).status).toBe(403);
    expect((await restore(id, server.token('editor', { doc: other }))).status).toBe(403);
    expect((await restore('nosuchdoc')).status).toBe(404);
    expect((await restore(id, server.token('editor', { doc: id }))).status).toBe(200);
  });

  it('[CAT4] duplicates a document: its text under "Copy of", a new id, nothing of its notes', async () => {
    const id = await server.createDoc('Recipe', '# Figs\n\n- one *fig*\n- two');
    await server.api(`/api/docs/${id}/annotations`, { method: 'POST', body: { kind: 'comment', blockId: (await server.api(`/api/docs/${id}`)).body.blocks[0].id, text: 'Nice' } });
    const copied = await duplicate(id);
    expect(copied.status).toBe(201);
    expect(copied.body.id).not.toBe(id);
    const copy = (await server.api(`/api/docs/${copied.body.id}`)).body;
    expect(copy.title).toBe('Copy of Recipe');
    expect(copy.annotations).toEqual([]);
    expect((await server.api(`/api/docs/${copied.body.id}/markdown`)).body).toBe((await server.api(`/api/docs/${id}/markdown`)).body);
    expect(await ids('?q=copy')).toContain(copied.body.id);
    expect(await actionsOf(id)).toEqual(['doc.duplicated', 'annotation.created', 'doc.created']);
    expect(await actionsOf(copied.body.id)).toEqual(['doc.created']);
  });

  it('[CAT4] duplicates only for editors with a token for every document, and never a trashed one', async () => {
    const id = await server.createDoc('Solo', 'x');
    for (const role of ['viewer', 'commenter', 'agent'] as const) expect((await duplicate(id, server.token(role))).status, role).toBe(403);
    expect((await duplicate(id, server.token('editor', { doc: id }))).status).toBe(403);
    expect((await duplicate('nosuchdoc')).status).toBe(404);
    await trash(id);
    expect((await duplicate(id)).status).toBe(410);
  });
});

async function rawUpdate(url: string, id: string, deletedAt: number): Promise<void> {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('UPDATE docs SET deleted_at = $2 WHERE id = $1', [id, deletedAt]);
  } finally {
    await client.end();
  }
}

async function sqliteUpdate(dataDir: string, id: string, deletedAt: number): Promise<void> {
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(`${dataDir}/tandem.sqlite`);
  try {
    db.prepare('UPDATE docs SET deleted_at = ? WHERE id = ?').run(deletedAt, id);
  } finally {
    db.close();
  }
}
