import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docName, runsParts } from '../../shared/model/doc-layout.ts';
import { readRunRecords } from '../../shared/protocol/run-record.ts';
import { mirroredFinishedRuns } from '../../server/runs/run-mirror.ts';
import { agentRewroteFirstBlock, createDoc, getRun, instruct } from '../helpers/runs.ts';
import { connectPeer, waitFor, type Peer } from '../helpers/peer.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { postgresSchemas } from '../helpers/pg-schema.ts';

/*
 * RUN4: the `<id>/runs` mirror holds the outstanding run, the `mirroredFinishedRuns` newest
 * finished ones and the last decided ones (Recent runs), written run by run: a change of one run reads that run from the store, a run
 * that falls out of the window leaves every browser's mirror live, and a load reads the window
 * alone. Older runs stay readable with `GET /api/runs/:runId`. On both backends.
 */

const postgres = postgresSchemas();
const backends = [
  { name: 'SQLite', databaseUrl: async () => undefined },
  { name: 'PostgreSQL', databaseUrl: async () => postgres.fresh() },
];

describe.each(backends)('the window of the runs mirror ($name)', (backend) => {
  let server: TestServer;
  beforeAll(async () => {
    if (backend.name === 'PostgreSQL') await postgres.setUp();
    server = await startTestServer({ databaseUrl: await backend.databaseUrl() });
  });
  afterAll(async () => {
    await server?.dispose();
    if (backend.name === 'PostgreSQL') await postgres.tearDown();
  });

  const watch = async (docId: string): Promise<Peer> => {
    const peer = connectPeer({ wsUrl: server.wsUrl, name: docName(docId, 'runs'), token: server.token('viewer') });
    await peer.synced;
    return peer;
  };
  const mirroredIds = (peer: Peer) => readRunRecords(peer.ydoc).runs.map((run) => run.runId);
  const send = async (docId: string): Promise<string> => {
    const sent = await server.api(`/api/docs/${docId}/runs`, { method: 'POST' });
    expect(sent.status).toBe(201);
    return sent.body.runId;
  };
  const cancel = async (runId: string) => expect((await server.api(`/api/runs/${runId}/cancel`, { method: 'POST' })).status).toBe(200);
  /** Runs of `docId`'s ready instructions, sent and cancelled `count` times: their ids, newest first. */
  const cancelledRuns = async (docId: string, count: number): Promise<string[]> => {
    const runIds: string[] = [];
    for (let i = 0; i < count; i++) {
      const runId = await send(docId);
      await cancel(runId);
      runIds.unshift(runId);
    }
    return runIds;
  };
  /** A document with one instruction, sent and cancelled `count` times: its id and the runs' ids, newest first. */
  const withCancelledRuns = async (count: number): Promise<{ docId: string; runIds: string[] }> => {
    const doc = await createDoc(server, 'alpha one\n\nbeta two');
    await instruct(server, doc.id, doc.blocks[0].id, 'uppercase');
    return { docId: doc.id, runIds: await cancelledRuns(doc.id, count) };
  };

  it('[RUN4] holds the outstanding run and the newest finished ones; the run that falls out leaves live; a load reads the same', async () => {
    const { docId, runIds } = await withCancelledRuns(mirroredFinishedRuns);
    const peer = await watch(docId);
    const left: string[] = [];
    runsParts(peer.ydoc).runs.observe((event) => {
      for (const [id, change] of event.changes.keys) if (change.action === 'delete') left.push(id);
    });
    expect(mirroredIds(peer)).toEqual(runIds);

    // Outstanding runs come on top of the window: nothing leaves yet.
    const sent = await send(docId);
    await waitFor(() => mirroredIds(peer)[0] === sent);
    expect(mirroredIds(peer)).toEqual([sent, ...runIds]);
    expect(left).toEqual([]);

    await cancel(sent);
    await waitFor(() => left.length > 0);
    expect(left).toEqual([runIds.at(-1)]);
    expect(mirroredIds(peer)).toEqual([sent, ...runIds.slice(0, -1)]);
    peer.destroy();

    // A run out of the window is still read over HTTP.
    expect(await getRun(server, runIds.at(-1)!)).toMatchObject({ runId: runIds.at(-1), state: 'cancelled' });

    const next = await send(docId);
    await server.restart();
    const fresh = await watch(docId);
    try {
      expect(mirroredIds(fresh)).toEqual([next, sent, ...runIds.slice(0, -1)]);
    } finally {
      fresh.destroy();
    }
    await cancel(next);
  });

  it('[RUN4] mirrors a change of one run by reading that run alone: a run changed behind the server stays as mirrored until a load', async () => {
    const { docId, runIds } = await withCancelledRuns(2);
    // Someone has the document open: its mirror stays loaded between the writes.
    const peer = await watch(docId);
    const [, older] = runIds;
    await server.exec('UPDATE runs SET summary = ? WHERE id = ?', ['Changed behind the server', older]);

    const sent = await send(docId);
    await waitFor(() => mirroredIds(peer)[0] === sent);
    const records = readRunRecords(peer.ydoc).runs;
    expect(records.find((run) => run.runId === sent)?.state).toBe('queued');
    expect(records.find((run) => run.runId === older)?.summary).toBeNull();
    peer.destroy();

    // The positive control: the store holds the change, and a load of the mirror reads it.
    expect((await getRun(server, older)).summary).toBe('Changed behind the server');
    await server.restart();
    const fresh = await watch(docId);
    try {
      expect(readRunRecords(fresh.ydoc).runs.find((run) => run.runId === older)?.summary).toBe('Changed behind the server');
    } finally {
      fresh.destroy();
    }
    await cancel(sent);
  });

  it('[RUN4] [REV8] keeps the last decided runs, and their Revert run, past a streak of cancelled runs', async () => {
    const doc = await createDoc(server, 'alpha one\n\nbeta two');
    const { runId: accepted } = await agentRewroteFirstBlock(server, doc.id, 'Alpha one');
    expect((await server.api(`/api/runs/${accepted}/accept`, { method: 'POST' })).status).toBe(200);
    await instruct(server, doc.id, doc.blocks[1].id, 'uppercase');
    const cancelled = await cancelledRuns(doc.id, mirroredFinishedRuns + 1);
    const peer = await watch(doc.id);
    try {
      expect(mirroredIds(peer)).toEqual([...cancelled.slice(0, mirroredFinishedRuns), accepted]);
      expect((await server.api(`/api/runs/${accepted}/revert`, { method: 'POST' })).status).toBe(200);
      await waitFor(() => readRunRecords(peer.ydoc).runs.find((run) => run.runId === accepted)?.reverted !== null);
      expect(mirroredIds(peer)).toEqual([...cancelled.slice(0, mirroredFinishedRuns), accepted]);
    } finally {
      peer.destroy();
    }
    await server.restart();
    const fresh = await watch(doc.id);
    try {
      expect(mirroredIds(fresh)).toEqual([...cancelled.slice(0, mirroredFinishedRuns), accepted]);
    } finally {
      fresh.destroy();
    }
  });

  it('[RUN4] [REV9] brings the next finished run back into the window when Undo discard makes the newest run outstanding again', async () => {
    const { docId, runIds } = await withCancelledRuns(mirroredFinishedRuns);
    const peer = await watch(docId);
    // The text stays open, or Undo discard's window closes (REV9).
    const editor = connectPeer({ wsUrl: server.wsUrl, name: docName(docId), token: server.token('editor') });
    await editor.synced;
    try {
      const { runId } = await agentRewroteFirstBlock(server, docId, 'Alpha one');
      expect((await server.api(`/api/runs/${runId}/discard`, { method: 'POST' })).status).toBe(200);
      await waitFor(() => readRunRecords(peer.ydoc).runs[0]?.state === 'discarded');
      expect(mirroredIds(peer)).toEqual([runId, ...runIds.slice(0, -1)]);

      expect((await server.api(`/api/runs/${runId}/undo-discard`, { method: 'POST' })).body).toEqual({ state: 'review' });
      await waitFor(() => readRunRecords(peer.ydoc).runs[0]?.state === 'review');
      expect(mirroredIds(peer)).toEqual([runId, ...runIds]);
    } finally {
      editor.destroy();
      peer.destroy();
    }
  });
});
