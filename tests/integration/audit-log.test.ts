import { describe, expect, it } from 'vitest';
import { decodeClaims } from '../../shared/protocol/claims.ts';
import { connectPeer, waitFor } from '../helpers/peer.ts';
import { agentApi, createDoc, instruct } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

const server = useTestServer();

const owner = { id: 'owner', name: 'Owner', role: 'editor' };
const bot = { id: 'bot', name: 'Bot', role: 'agent' };
const reader = { id: 'reader', name: 'Reader', role: 'viewer' };

async function audit(docId: string, query = '', token?: string) {
  return server.api(`/api/docs/${docId}/audit${query}`, { token });
}

async function send(docId: string): Promise<string> {
  const sent = await server.api(`/api/docs/${docId}/runs`, { method: 'POST' });
  expect(sent.status).toBe(201);
  return sent.body.runId;
}

describe('the audit log', () => {
  it('[AUDIT1] records who created, opened, sent, claimed, failed, completed, accepted and discarded, newest first', async () => {
    const doc = await createDoc(server, 'one\n\ntwo', 'Audited');
    const peer = server.track(connectPeer({ wsUrl: server.wsUrl, name: doc.id, token: server.token('viewer', { sub: 'reader', name: 'Reader' }) }));
    await peer.synced;
    await waitFor(async () => (await audit(doc.id)).body.entries.some((entry: { action: string }) => entry.action === 'doc.opened'));

    const agent = agentApi(server, server.token('agent', { sub: 'bot', name: 'Bot' }));
    await instruct(server, doc.id, doc.blocks[0].id, 'uppercase');
    const failed = await send(doc.id);
    expect((await agent.claim(failed)).status).toBe(200);
    expect((await agent.fail(failed, 'gave up')).status).toBe(200);

    const accepted = await send(doc.id);
    await agent.claim(accepted);
    expect((await agent.complete(accepted)).status).toBe(200);
    expect((await server.api(`/api/runs/${accepted}/accept`, { method: 'POST' })).status).toBe(200);

    await instruct(server, doc.id, doc.blocks[1].id, 'lowercase');
    const discarded = await send(doc.id);
    await agent.claim(discarded);
    await agent.complete(discarded);
    expect((await server.api(`/api/runs/${discarded}/discard`, { method: 'POST' })).status).toBe(200);

    const scoped = server.token('commenter', { doc: doc.id });
    await server.revoke(decodeClaims(scoped)!.jti!, doc.id);

    const response = await audit(doc.id);
    expect(response.status).toBe(200);
    // The reads and annotations the helpers made over the API are AUDIT3's (below).
    const entries = response.body.entries.filter((entry: { action: string }) => !['doc.read', 'annotation.created'].includes(entry.action)).map(({ action, actor, runId }: { action: string; actor: unknown; runId?: string }) => ({ action, actor, runId }));
    expect(entries).toEqual([
      { action: 'token.revoked', actor: { id: 'command-line', name: 'Command line', role: 'operator' }, runId: undefined },
      { action: 'run.discarded', actor: owner, runId: discarded },
      { action: 'run.completed', actor: bot, runId: discarded },
      { action: 'run.claimed', actor: bot, runId: discarded },
      { action: 'run.sent', actor: owner, runId: discarded },
      { action: 'run.accepted', actor: owner, runId: accepted },
      { action: 'run.completed', actor: bot, runId: accepted },
      { action: 'run.claimed', actor: bot, runId: accepted },
      { action: 'run.sent', actor: owner, runId: accepted },
      { action: 'run.failed', actor: bot, runId: failed },
      { action: 'run.claimed', actor: bot, runId: failed },
      { action: 'run.sent', actor: owner, runId: failed },
      { action: 'doc.opened', actor: reader, runId: undefined },
      { action: 'doc.created', actor: owner, runId: undefined },
    ]);
    expect(response.body.entries[0].tokenId).toBe(decodeClaims(scoped)!.jti);
    for (const entry of response.body.entries) expect(new Date(entry.at).toISOString()).toBe(entry.at);
  });

  it('[AUDIT2] pages with before and limit, and says where the next page starts', async () => {
    const id = await server.createDoc('Paged');
    for (let i = 0; i < 4; i++) {
      const peer = server.track(connectPeer({ wsUrl: server.wsUrl, name: id, token: server.token('viewer') }));
      await peer.synced;
    }
    await waitFor(async () => (await audit(id)).body.entries.length === 5);
    const all = (await audit(id)).body.entries;
    const first = await audit(id, '?limit=2');
    expect(first.body.entries).toEqual(all.slice(0, 2));
    expect(first.body.next).toBe(all[1].id);
    const second = await audit(id, `?limit=2&before=${first.body.next}`);
    expect(second.body.entries).toEqual(all.slice(2, 4));
    const last = await audit(id, `?limit=2&before=${second.body.next}`);
    expect(last.body).toEqual({ entries: all.slice(4), next: null });
  });

  it.each(['?limit=0', '?limit=201', '?limit=abc', '?limit=1e2', '?before=-1', '?before=1.5', '?before=', '?limit=1&limit=2', `?before=${'9'.repeat(30)}`])(
    '[AUDIT2] answers 400 INVALID_QUERY to %s',
    async (query) => {
      const id = await server.createDoc('Bad paging');
      const response = await audit(id, query);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: { code: 'INVALID_QUERY', message: expect.any(String) } });
    },
  );

  it('[AUDIT2] is for editors of the document only', async () => {
    const id = await server.createDoc('Private');
    const other = await server.createDoc('Other');
    for (const role of ['commenter', 'viewer', 'agent'] as const) {
      const response = await audit(id, '', server.token(role));
      expect(response.status, role).toBe(403);
      expect(response.body.error.code).toBe('FORBIDDEN');
    }
    expect((await audit(id, '', server.token('editor', { doc: other }))).status).toBe(403);
    expect((await audit(id, '', server.token('editor', { doc: id }))).status).toBe(200);
    expect((await audit(id, '', server.token('editor'))).status).toBe(200);
    expect((await audit('nosuchdoc', '', server.token('editor'))).status).toBe(404);
  });

  it('[AUDIT3] records API reads once per token, document and hour, and annotations made over the API', async () => {
    const id = await server.createDoc('Read', 'text');
    const { body: created } = await server.api(`/api/docs/${id}`);
    const viewer = server.token('viewer', { sub: 'reader', name: 'Reader' });
    const other = server.token('viewer', { sub: 'reader', name: 'Reader' });
    for (const path of [`/api/docs/${id}`, `/api/docs/${id}/markdown`, `/api/docs/${id}`]) expect((await server.api(path, { token: viewer })).status).toBe(200);
    expect((await server.api(`/api/docs/${id}/markdown`, { token: other })).status).toBe(200);
    const annotated = await server.api(`/api/docs/${id}/annotations`, { method: 'POST', body: { kind: 'comment', blockId: created.blocks[0].id, text: 'Hm.' } });
    expect(annotated.status).toBe(201);

    const entries = (await audit(id)).body.entries as { action: string; actor: unknown; tokenId?: string }[];
    expect(entries.map(({ action, actor, tokenId }) => ({ action, actor, tokenId }))).toEqual([
      { action: 'annotation.created', actor: owner, tokenId: undefined },
      { action: 'doc.read', actor: reader, tokenId: decodeClaims(other)!.jti },
      { action: 'doc.read', actor: reader, tokenId: decodeClaims(viewer)!.jti },
      { action: 'doc.read', actor: owner, tokenId: decodeClaims(server.ownerToken)!.jti },
      { action: 'doc.created', actor: owner, tokenId: undefined },
    ]);
  });

  it('[AUDIT3] records a run read as a read of its document, and a second hour anew', async () => {
    const doc = await createDoc(server, 'one', 'Runs read');
    await instruct(server, doc.id, doc.blocks[0].id, 'uppercase');
    const runId = await send(doc.id);
    const viewer = server.token('viewer', { sub: 'reader', name: 'Reader' });
    expect((await server.api(`/api/runs/${runId}`, { token: viewer })).status).toBe(200);
    expect((await server.api(`/api/runs/${runId}`, { token: viewer })).status).toBe(200);
    const reads = async () => ((await audit(doc.id)).body.entries as { action: string; actor: { id: string } }[]).filter((entry) => entry.action === 'doc.read' && entry.actor.id === 'reader');
    expect(await reads()).toHaveLength(1);

    // The hour is the log's: an entry of an hour before does not count for this one.
    const { recordRead, readCoalesceMs } = await import('../../server/audit/record-audit.ts');
    const store = await server.openStore();
    try {
      const claims = decodeClaims(viewer)!;
      await recordRead(store.audit, claims, doc.id, Date.now() + readCoalesceMs);
      await recordRead(store.audit, claims, doc.id, Date.now() + readCoalesceMs + 1);
    } finally {
      await store.close();
    }
    expect(await reads()).toHaveLength(2);
  });
});
