import { describe, expect, it } from 'vitest';
import type { Role } from '../../shared/protocol/claims.ts';
import { readAnnotation, type Annotation } from '../../shared/notes/annotations.ts';
import { setResolved } from '../../shared/notes/annotations-writers.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import { readRunRecords } from '../../shared/protocol/run-record.ts';
import { waitFor } from '../helpers/peer.ts';
import { useTestServer } from '../helpers/use-test-server.ts';
import { pinAnnotation } from '../helpers/notes.ts';
import { textAndNotesPeers } from '../helpers/notes-peers.ts';

const server = useTestServer();

const connect = server.connect;

/** A document of three paragraphs; its id and block ids. */
async function createDoc(): Promise<{ id: string; blocks: string[] }> {
  const markdown = 'alpha one\n\nbeta two\n\ngamma three';
  const id = (await server.api('/api/docs', { method: 'POST', body: { title: 'Runs', markdown } })).body.id;
  const doc = await server.api(`/api/docs/${id}`);
  return { id, blocks: doc.body.blocks.map((block: { id: string }) => block.id) };
}

async function annotate(id: string, kind: 'comment' | 'instruction', blockId: string, text: string): Promise<string> {
  const response = await server.api(`/api/docs/${id}/annotations`, { method: 'POST', body: { kind, blockId, text } });
  expect(response.status).toBe(201);
  return response.body.id;
}

const send = (id: string, token: string = server.ownerToken) => server.api(`/api/docs/${id}/runs`, { method: 'POST', token });

async function instructions(id: string): Promise<Annotation[]> {
  return (await server.api(`/api/docs/${id}`)).body.annotations.filter((note: Annotation) => note.kind === 'instruction');
}

describe('POST /api/docs/:id/runs', () => {
  it('answers 422 NOTHING_TO_SEND when no instruction is queued', async () => {
    const doc = await createDoc();
    await annotate(doc.id, 'comment', doc.blocks[0], 'uppercase');
    const response = await send(doc.id);
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('NOTHING_TO_SEND');
    expect((await server.api(`/api/docs/${doc.id}`)).body.runs).toEqual([]);
  });

  it('[RUN1] sends every queued instruction in creation order and answers 201 with the items', async () => {
    const doc = await createDoc();
    const first = await annotate(doc.id, 'instruction', doc.blocks[2], 'uppercase');
    const second = await annotate(doc.id, 'instruction', doc.blocks[0], 'replace "one" with "1"');
    const response = await send(doc.id, server.token('editor', { sub: 'ed', name: 'Ed' }));
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      runId: expect.stringMatching(/^r[a-z0-9]{11}$/),
      items: [
        { instructionId: first, blockId: doc.blocks[2], instruction: 'uppercase', quote: 'gamma three', currentText: 'gamma three', drifted: false, variantsWanted: 1 },
        {
          instructionId: second,
          blockId: doc.blocks[0],
          instruction: 'replace "one" with "1"',
          quote: 'alpha one',
          currentText: 'alpha one',
          drifted: false,
          variantsWanted: 1,
        },
      ],
    });
    const run = await server.api(`/api/runs/${response.body.runId}`);
    expect(run.status).toBe(200);
    expect(run.body).toEqual({
      runId: response.body.runId,
      docId: doc.id,
      state: 'queued',
      items: [
        { ...response.body.items[0], outcome: 'pending', reason: null, decision: null, variants: [], chosen: null },
        { ...response.body.items[1], outcome: 'pending', reason: null, decision: null, variants: [], chosen: null },
      ],
      changes: [],
      createdAt: expect.any(String),
      createdBy: { id: 'ed', name: 'Ed' },
      updatedAt: run.body.createdAt,
      summary: null,
      error: null,
      claimedBy: null,
      lease: null,
      decidedBy: null,
      reverted: null,
      agent: null,
      activity: [],
      usage: null,
    });
    expect(Date.parse(run.body.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    expect((await server.api(`/api/docs/${doc.id}`)).body.runs).toEqual([run.body]);
    expect(await instructions(doc.id)).toMatchObject([
      { id: first, state: 'sent', runId: response.body.runId },
      { id: second, state: 'sent', runId: response.body.runId },
    ]);
  });

  it('[RUN1] leaves draft and resolved instructions and comments out', async () => {
    const doc = await createDoc();
    const author = { id: 'ed', name: 'Ed' };
    const { text, notes } = await textAndNotesPeers(server, doc.id, 'editor', author);
    const draft = pinAnnotation(notes.ydoc, text.ydoc, doc.blocks[0], author, { kind: 'instruction', state: 'draft', text: 'delete' });
    const queued = pinAnnotation(notes.ydoc, text.ydoc, doc.blocks[1], author, { kind: 'instruction', text: 'lowercase' });
    const resolved = pinAnnotation(notes.ydoc, text.ydoc, doc.blocks[2], author, { kind: 'instruction', text: 'delete' });
    setResolved(notes.ydoc, resolved, true);
    await waitFor(async () => (await instructions(doc.id)).length === 3);
    await annotate(doc.id, 'comment', doc.blocks[2], 'uppercase');
    const response = await send(doc.id);
    expect(response.status).toBe(201);
    expect(response.body.items.map((item: { instructionId: string }) => item.instructionId)).toEqual([queued]);
    await waitFor(() => {
      const read = readAnnotation(notes.ydoc, queued);
      return read.ok && read.annotation.kind === 'instruction' && read.annotation.state === 'sent';
    });
    expect(readAnnotation(notes.ydoc, draft)).toMatchObject({ ok: true, annotation: { state: 'draft', runId: null } });
    expect(readAnnotation(notes.ydoc, resolved)).toMatchObject({ ok: true, annotation: { state: 'queued', runId: null } });
  });

  it('[RUN4] shows connected peers the instructions as sent and the run in the runs mirror', async () => {
    const doc = await createDoc();
    const ids = [await annotate(doc.id, 'instruction', doc.blocks[0], 'uppercase'), await annotate(doc.id, 'instruction', doc.blocks[1], 'delete')];
    const viewer = server.token('viewer');
    const [notes, runs] = [connect(docName(doc.id, 'notes'), viewer), connect(docName(doc.id, 'runs'), viewer)];
    await Promise.all([notes.synced, runs.synced]);
    const { body } = await send(doc.id);
    await waitFor(() => readRunRecords(runs.ydoc).runs.length === 1);
    expect(readRunRecords(runs.ydoc)).toEqual({ runs: [(await server.api(`/api/runs/${body.runId}`)).body], invalid: [] });
    await waitFor(() =>
      ids.every((id) => {
        const read = readAnnotation(notes.ydoc, id);
        return read.ok && read.annotation.kind === 'instruction' && read.annotation.state === 'sent' && read.annotation.runId === body.runId;
      }),
    );
  });

  it('[RUN2] refuses a second send while the first run is outstanding with 409 RUN_OUTSTANDING', async () => {
    const doc = await createDoc();
    await annotate(doc.id, 'instruction', doc.blocks[0], 'uppercase');
    const first = await send(doc.id);
    const later = await annotate(doc.id, 'instruction', doc.blocks[1], 'lowercase');
    const second = await send(doc.id);
    expect(second.status).toBe(409);
    expect(second.body.error).toEqual({ code: 'RUN_OUTSTANDING', message: expect.any(String), runId: first.body.runId });
    const again = await send(doc.id);
    expect(again.status).toBe(409);
    expect((await instructions(doc.id)).find((note) => note.id === later)).toMatchObject({ state: 'queued', runId: null });
    expect((await server.api(`/api/docs/${doc.id}`)).body.runs).toHaveLength(1);
  });

  it('[RUN2] makes exactly one run of eight simultaneous sends; the other seven get 409', async () => {
    const doc = await createDoc();
    const ids = [];
    for (const block of doc.blocks) ids.push(await annotate(doc.id, 'instruction', block, 'uppercase'));
    const responses = await Promise.all(Array.from({ length: 8 }, () => send(doc.id)));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    for (const response of responses.filter((r) => r.status === 409)) expect(response.body.error.code).toBe('RUN_OUTSTANDING');
    const winner = responses.find((response) => response.status === 201)!.body;
    expect(winner.items.map((item: { instructionId: string }) => item.instructionId)).toEqual(ids);
    const runs = (await server.api(`/api/docs/${doc.id}`)).body.runs;
    expect(runs.map((run: { runId: string }) => run.runId)).toEqual([winner.runId]);
    expect((await instructions(doc.id)).map((note) => note.kind === 'instruction' && [note.state, note.runId])).toEqual(
      ids.map(() => ['sent', winner.runId]),
    );
  });

  it.each<[Role, number]>([
    ['editor', 201],
    ['commenter', 403],
    ['viewer', 403],
    ['agent', 403],
  ])('answers a %s sending with %i', async (role, status) => {
    const doc = await createDoc();
    await annotate(doc.id, 'instruction', doc.blocks[0], 'uppercase');
    const response = await send(doc.id, server.token(role));
    expect(response.status).toBe(status);
    expect((await server.api(`/api/docs/${doc.id}`)).body.runs).toHaveLength(status === 201 ? 1 : 0);
    expect((await instructions(doc.id))[0].kind === 'instruction' && (await instructions(doc.id))[0]).toMatchObject({
      state: status === 201 ? 'sent' : 'queued',
    });
  });

  it('answers 404 for an unknown document', async () => {
    expect((await send('nosuchdoc')).status).toBe(404);
  });
});

describe('GET /api/runs/:runId', () => {
  it.each<Role>(['editor', 'commenter', 'viewer', 'agent'])('shows a run to a %s', async (role) => {
    const doc = await createDoc();
    await annotate(doc.id, 'instruction', doc.blocks[0], 'uppercase');
    const { body } = await send(doc.id);
    const response = await server.api(`/api/runs/${body.runId}`, { token: server.token(role) });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ runId: body.runId, docId: doc.id, state: 'queued' });
  });

  it('answers 404 for an unknown run and 403 to a token limited to another document', async () => {
    expect((await server.api('/api/runs/rnosuchrun00')).status).toBe(404);
    expect((await server.api('/api/runs/not%20a%20run')).status).toBe(404);
    const doc = await createDoc();
    const other = await createDoc();
    await annotate(doc.id, 'instruction', doc.blocks[0], 'uppercase');
    const { body } = await send(doc.id);
    expect((await server.api(`/api/runs/${body.runId}`, { token: server.token('viewer', { doc: other.id }) })).status).toBe(403);
    expect((await server.api(`/api/runs/${body.runId}`, { token: server.token('viewer', { doc: doc.id }) })).status).toBe(200);
  });
});

describe('the runs mirror', () => {
  it('survives a restart', async () => {
    const doc = await createDoc();
    await annotate(doc.id, 'instruction', doc.blocks[0], 'uppercase');
    const { body } = await send(doc.id);
    await server.restart();
    const runs = connect(docName(doc.id, 'runs'), server.token('viewer'));
    await runs.synced;
    expect(readRunRecords(runs.ydoc).runs.map((run) => [run.runId, run.state])).toEqual([[body.runId, 'queued']]);
  });

  it('[RUN4] is rebuilt from the run store when the document loads', async () => {
    const doc = await createDoc();
    await annotate(doc.id, 'instruction', doc.blocks[0], 'uppercase');
    const { body } = await send(doc.id);
    await server.stop();
    await server.exec('DELETE FROM documents WHERE name = ?', [docName(doc.id, 'runs')]);
    await server.restart();
    const runs = connect(docName(doc.id, 'runs'), server.token('viewer'));
    await runs.synced;
    expect(readRunRecords(runs.ydoc).runs.map((run) => run.runId)).toEqual([body.runId]);
  });
});
