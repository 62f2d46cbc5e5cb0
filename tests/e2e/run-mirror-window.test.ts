import type * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { readAnnotation } from '../../shared/notes/annotations.ts';
import { docName, notesParts } from '../../shared/model/doc-layout.ts';
import { readRunRecords } from '../../shared/protocol/run-record.ts';
import { recentDecidedRuns } from '../../shared/protocol/run-state-names.ts';
import { mirroredFinishedRuns } from '../../server/runs/run-mirror.ts';
import { useBrowser, waitForStatus } from '../helpers/browser.ts';
import { notesPeer } from '../helpers/notes-peers.ts';
import { connectPeer, waitFor } from '../helpers/peer.ts';
import { agentApi, createDoc, instruct } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

const server = useTestServer();
const people = useBrowser(server);

describe('runs that left the runs mirror', () => {
  it('[RUN4] [NOTES5] shows the work order an instruction went with once its card is active, read over HTTP for a run the mirror no longer holds', async () => {
    const doc = await createDoc(server, 'first block\n\nsecond block');
    const instructionId = await instruct(server, doc.id, doc.blocks[0].id, 'uppercase');
    const sent = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
    expect(sent.status).toBe(201);
    const runId: string = sent.body.runId;
    const agent = agentApi(server, server.token('agent', { sub: 'scribe', name: 'Scribe' }));
    expect((await agent.claim(runId)).status).toBe(200);
    expect((await agent.complete(runId)).status).toBe(200);
    expect((await server.api(`/api/runs/${runId}/accept`, { method: 'POST' })).status).toBe(200);

    // An edit made on a replica that had not seen the Send yet reaches the server afterwards.
    const late = notesPeer(server, doc.id, { sub: 'ed', name: 'Ed', role: 'editor' });
    await late.synced;
    await waitFor(() => readAnnotation(late.ydoc, instructionId).ok);
    const record = notesParts(late.ydoc).annotations.get(instructionId) as Y.Map<unknown>;
    (record.get('turns') as Y.Array<Y.Map<unknown>>).get(0).set('text', 'lowercase');
    await waitFor(async () => JSON.stringify((await server.api(`/api/docs/${doc.id}`)).body.annotations).includes('lowercase'));
    late.destroy();

    // Newer runs push the accepted one out of the mirror: as many decided ones as Recent runs
    // lists, then cancelled ones up to the mirror's finished runs.
    for (let i = 0; i < mirroredFinishedRuns; i++) {
      if (i <= recentDecidedRuns) await instruct(server, doc.id, doc.blocks[1].id, `shorter ${i}`);
      const next = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
      expect(next.status).toBe(201);
      if (i < recentDecidedRuns) {
        expect((await agent.claim(next.body.runId)).status).toBe(200);
        expect((await agent.complete(next.body.runId)).status).toBe(200);
        expect((await server.api(`/api/runs/${next.body.runId}/discard`, { method: 'POST' })).status).toBe(200);
      } else {
        expect((await server.api(`/api/runs/${next.body.runId}/cancel`, { method: 'POST' })).status).toBe(200);
      }
    }
    const mirror = connectPeer({ wsUrl: server.wsUrl, name: docName(doc.id, 'runs'), token: server.token('viewer') });
    await mirror.synced;
    expect(readRunRecords(mirror.ydoc).runs).toHaveLength(mirroredFinishedRuns);
    expect(readRunRecords(mirror.ydoc).runs.map((run) => run.runId)).not.toContain(runId);
    mirror.destroy();

    const bob = await people.open(`/d/${doc.id}`, server.token('editor', { sub: 'bob', name: 'Bob' }));
    await waitForStatus(bob.page, 'Connected');
    const card = bob.page.locator(`.annotation-card[data-annotation-id="${instructionId}"]`);
    await expect.poll(() => card.locator('.card-state').innerText()).toBe('Answered');
    expect(await card.locator('.card-text').innerText()).toBe('lowercase');
    expect(await card.locator('.card-edited').count()).toBe(0);

    // A click on the card makes it the active one and selects its text (the whole block).
    await card.locator('.card-text').click();
    await expect.poll(() => card.getAttribute('aria-current')).toBe('true');
    await expect.poll(() => card.locator('.card-edited').count()).toBe(1);
    expect(await card.locator('.card-edited').innerText()).toBe('Edited after it was sent. The agent got: “uppercase”');
  });
});
