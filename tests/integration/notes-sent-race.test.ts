import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { readAnnotation } from '../../shared/notes/annotations.ts';
import { editInstructionText, setInstructionState } from '../../shared/notes/annotations-writers.ts';
import { docName, notesParts } from '../../shared/model/doc-layout.ts';
import { connectPeer, waitFor } from '../helpers/peer.ts';
import { notesPeer, type Principal } from '../helpers/notes-peers.ts';
import { createDoc, getRun, instruct } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';
import { logPrefixes } from '../helpers/log-prefixes.ts';
import { storedRows } from '../helpers/stored-rows.ts';

const server = useTestServer();

const ed: Principal = { sub: 'ed', name: 'Ed', role: 'editor' };
const eve: Principal = { sub: 'eve', name: 'Eve', role: 'editor' };

/** Yjs gives a concurrent map entry to the higher client id: this replica's sets win every tie. */
const winningClientId = 0xffffffff;

/** An instruction as a replica holds it: `state runId · work order`. */
function view(ydoc: Y.Doc, id: string): string {
  const read = readAnnotation(ydoc, id);
  if (!read.ok || read.annotation.kind !== 'instruction') return `unreadable: ${read.ok ? read.annotation.kind : read.reason}`;
  return `${read.annotation.state} ${read.annotation.runId} · ${read.annotation.turns[0].text}`;
}

/** The instruction as the server holds it, read by a fresh viewer. */
async function serverView(docId: string, id: string): Promise<string> {
  const viewer = connectPeer({ wsUrl: server.wsUrl, name: docName(docId, 'notes'), token: server.token('viewer') });
  try {
    await viewer.synced;
    return view(viewer.ydoc, id);
  } finally {
    viewer.destroy();
  }
}

async function queuedInstruction() {
  const doc = await createDoc(server, 'first block\n\nsecond block');
  const instructionId = await instruct(server, doc.id, doc.blocks[0].id, 'uppercase');
  return { docId: doc.id, instructionId };
}

async function send(docId: string): Promise<string> {
  const sent = await server.api(`/api/docs/${docId}/runs`, { method: 'POST', token: server.token('editor', { sub: eve.sub, name: eve.name }) });
  expect(sent.status).toBe(201);
  return sent.body.runId;
}

describe('instructions the server has sent', () => {
  it('[NOTES13] keeps an offline edit that raced Send: no refusal, and every replica ends sent with the run and the new text', async () => {
    const { docId, instructionId } = await queuedInstruction();
    const offline = new Y.Doc();
    offline.clientID = winningClientId;
    const [a, b] = [notesPeer(server, docId, ed, offline), notesPeer(server, docId, eve)];
    await Promise.all([a.synced, b.synced]);
    await waitFor(() => view(a.ydoc, instructionId) === 'queued null · uppercase');

    const socket = a.provider.configuration.websocketProvider;
    socket.disconnect();
    await waitFor(() => socket.status === 'disconnected');
    expect(editInstructionText(a.ydoc, instructionId, 'lowercase')).toEqual({ ok: true });
    expect(setInstructionState(a.ydoc, instructionId, 'draft', null)).toEqual({ ok: true });
    const runId = await send(docId);
    await waitFor(() => view(b.ydoc, instructionId) === `sent ${runId} · uppercase`);

    void socket.connect();
    const expected = `sent ${runId} · lowercase`;
    await waitFor(() => view(a.ydoc, instructionId) === expected && view(b.ydoc, instructionId) === expected);
    expect(await serverView(docId, instructionId)).toBe(expected);
    expect(a.closed).toEqual([]);
    expect((await getRun(server, runId)).items.map((item) => item.instruction)).toEqual(['uppercase']);

    await server.restart();
    expect(await serverView(docId, instructionId)).toBe(expected);
  });

  it('[NOTES13] writes back the state and run an editor forges on a sent instruction, for every replica and the store', async () => {
    const { docId, instructionId } = await queuedInstruction();
    const runId = await send(docId);
    const forger = new Y.Doc();
    forger.clientID = winningClientId;
    const [a, b] = [notesPeer(server, docId, ed, forger), notesPeer(server, docId, eve)];
    await Promise.all([a.synced, b.synced]);
    const expected = `sent ${runId} · uppercase`;
    await waitFor(() => view(a.ydoc, instructionId) === expected);

    const record = notesParts(a.ydoc).annotations.get(instructionId) as Y.Map<unknown>;
    for (const forge of [
      () => a.ydoc.transact(() => (record.set('state', 'queued'), record.set('runId', null))),
      () => a.ydoc.transact(() => (record.set('state', 'answered'), record.set('runId', 'rforged0001'))),
      () => record.set('state', 'draft'),
    ]) {
      forge();
      expect(view(a.ydoc, instructionId)).not.toBe(expected);
      await waitFor(() => view(a.ydoc, instructionId) === expected && view(b.ydoc, instructionId) === expected);
    }
    expect(a.closed).toEqual([]);
    expect(await serverView(docId, instructionId)).toBe(expected);
    await server.restart();
    expect(await serverView(docId, instructionId)).toBe(expected);
  });

  // Yjs encodes the update of the transaction that applied the forgery with the write-back made
  // in its afterTransaction, and that update is what SQLite's log takes: one entry holds both.
  it('[NOTES13] [DUR1] logs a forged state only with its write-back: no state a crash could leave holds the forgery', async () => {
    const { docId, instructionId } = await queuedInstruction();
    const runId = await send(docId);
    const forger = new Y.Doc();
    forger.clientID = winningClientId;
    const a = notesPeer(server, docId, ed, forger);
    await a.synced;
    const expected = `sent ${runId} · uppercase`;
    await waitFor(() => view(a.ydoc, instructionId) === expected);

    const record = notesParts(a.ydoc).annotations.get(instructionId) as Y.Map<unknown>;
    a.ydoc.transact(() => (record.set('state', 'queued'), record.set('runId', null)));
    await waitFor(() => a.provider.unsyncedChanges === 0 && view(a.ydoc, instructionId) === expected);

    const { state, log } = await storedRows(server, docName(docId, 'notes'));
    const prefixes = logPrefixes(state, log);
    expect(prefixes.length).toBeGreaterThan(0);
    expect(prefixes.map((prefix) => view(prefix, instructionId))).toEqual(prefixes.map(() => expected));
  });
});
