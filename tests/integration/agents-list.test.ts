import { describe, expect, it } from 'vitest';
import { modelAgentName } from '../../agents/model/model-agent.ts';
import { waitFor } from '../helpers/peer.ts';
import { startTestModelAgent } from '../helpers/model-agent.ts';
import { agentApi, createDoc } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * RUN7: `GET /api/docs/:id` lists the agents that asked for work or worked on a run in the last
 * 60 s. The server reads that off a clock these tests move on by hand (real time plus `ahead`).
 */

const clock = {
  ahead: 0,
  now: () => Date.now() + clock.ahead,
};
const server = useTestServer({ leaseClock: () => clock.now() }, 'test');

const agentsOf = async (docId: string) => (await server.api(`/api/docs/${docId}`)).body.agents as { name: string; model: string | null; lastSeen: string }[];
const names = async (docId: string) => (await agentsOf(docId)).map((agent) => agent.name);

describe('the agents of a document', () => {
  it('[RUN7] lists an agent that polled for work, with no model, and drops it 60 s after', async () => {
    const doc = await createDoc(server, 'alpha');
    expect(await agentsOf(doc.id)).toEqual([]);
    const before = clock.now();
    expect((await agentApi(server, server.token('agent', { name: 'Poller' })).queued()).status).toBe(200);
    const [listed] = await agentsOf(doc.id);
    expect(listed).toMatchObject({ name: 'Poller', model: null });
    expect(Date.parse(listed.lastSeen)).toBeGreaterThanOrEqual(before);
    expect((await server.api(`/api/docs/${doc.id}/agents`)).body).toEqual([listed]);

    clock.ahead += 59_000;
    expect(await names(doc.id)).toEqual(['Poller']);
    clock.ahead += 1_001;
    expect(await agentsOf(doc.id)).toEqual([]);
  });

  it('[RUN7] keeps an agent listed while its long poll is held, and leaves out agents whose token is for another document', async () => {
    const doc = await createDoc(server, 'alpha');
    const other = await createDoc(server, 'beta');
    expect((await agentApi(server, server.token('agent', { name: 'Elsewhere', doc: other.id })).queued()).status).toBe(200);
    const waiting = agentApi(server, server.token('agent', { name: 'Waiter' })).queued('?state=queued&wait=2');
    await waitFor(async () => (await names(doc.id)).includes('Waiter'));
    expect(await names(doc.id)).toEqual(['Waiter']);
    expect(await names(other.id)).toContain('Elsewhere');
    clock.ahead += 120_000;
    // The poll is still held: the agent is connected now.
    expect(await names(doc.id)).toEqual(['Waiter']);
    expect((await waiting).status).toBe(200);
    expect(await names(doc.id)).toEqual(['Waiter']);
    clock.ahead += 60_001;
    expect(await names(doc.id)).toEqual([]);
  });

  it('[RUN7] names the model of the model agent as it waits for work', async () => {
    const doc = await createDoc(server, 'alpha');
    const agent = await startTestModelAgent(server, []);
    try {
      await waitFor(async () => (await names(doc.id)).includes(modelAgentName));
      expect((await agentsOf(doc.id)).map(({ name, model }) => ({ name, model }))).toEqual([{ name: modelAgentName, model: 'fake-model' }]);
    } finally {
      await agent.stop();
    }
  });
});
