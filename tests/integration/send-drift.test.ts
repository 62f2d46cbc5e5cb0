import { describe, expect, it } from 'vitest';
import { docParts } from '../../shared/model/doc-layout.ts';
import { appendToBlock } from '../helpers/doc-builder.ts';
import { connectPeer, waitFor } from '../helpers/peer.ts';
import { agentApi, createDoc, getRun, instruct, markdownOf } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * Drift through Send (shared/PROTOCOL.md RUN5): each item carries the instruction's quote and
 * the text its anchors cover at send time, and says whether they differ.
 */

const server = useTestServer();

describe('Send with pinned text that changed since it was pinned', () => {
  it('[RUN5] gives each item its quote, the current text and whether it drifted, to the sender, the run record and the agent', async () => {
    const doc = await createDoc(server, 'alpha one\n\nbeta two\n\ngamma three');
    const [alpha, beta, gamma] = doc.blocks;
    const edited = await instruct(server, doc.id, alpha.id, 'uppercase');
    const deleted = await instruct(server, doc.id, beta.id, 'lowercase');
    const untouched = await instruct(server, doc.id, gamma.id, 'uppercase');

    // A person edits the first block and deletes the second after they were pinned.
    const person = server.track(connectPeer({ wsUrl: server.wsUrl, name: doc.id, token: server.token('editor') }));
    await person.synced;
    appendToBlock(person.ydoc, 0, ' and more');
    person.ydoc.transact(() => docParts(person.ydoc).content.delete(1, 1));
    await waitFor(async () => (await markdownOf(server, doc.id)) === 'alpha one and more\n\ngamma three');

    const sent = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
    expect(sent.status).toBe(201);
    const expected = [
      { instructionId: edited, blockId: alpha.id, instruction: 'uppercase', quote: 'alpha one', currentText: 'alpha one and more', drifted: true, variantsWanted: 1 },
      { instructionId: deleted, blockId: beta.id, instruction: 'lowercase', quote: 'beta two', currentText: null, drifted: true, variantsWanted: 1 },
      { instructionId: untouched, blockId: gamma.id, instruction: 'uppercase', quote: 'gamma three', currentText: 'gamma three', drifted: false, variantsWanted: 1 },
    ];
    expect(sent.body.items).toEqual(expected);
    expect((await getRun(server, sent.body.runId)).items).toEqual(expected.map((item) => ({ ...item, outcome: 'pending', reason: null, decision: null, variants: [], chosen: null })));

    const bot = agentApi(server, server.token('agent'));
    const queued = await bot.queued();
    expect(queued.body.find((run: { runId: string }) => run.runId === sent.body.runId).items).toEqual(expected);
    const claimed = await bot.claim(sent.body.runId);
    expect(claimed.status).toBe(200);
    expect(claimed.body.items).toEqual(expected);
  });
});
