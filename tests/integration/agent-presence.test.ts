import { describe, expect, it } from 'vitest';
import { modelAgentName } from '../../agents/model/model-agent.ts';
import { connectPeer, waitFor, type Peer } from '../helpers/peer.ts';
import { connectMcp } from '../helpers/mcp.ts';
import { startTestModelAgent } from '../helpers/model-agent.ts';
import { sentRun, waitForState } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * The model agent and MCP clients show themselves in the document while they work on a run
 * (PRES6), as the reference agent does.
 */

const server = useTestServer();

function agentsIn(watcher: Peer): { name: string; role: string; status?: string }[] {
  return [...watcher.provider.awareness!.getStates().values()]
    .map((state) => state.user as { name: string; role: string; status?: string } | undefined)
    .filter((user): user is { name: string; role: string; status?: string } => user?.role === 'agent');
}

async function watch(docId: string): Promise<Peer> {
  const watcher = server.track(connectPeer({ wsUrl: server.wsUrl, name: docId, token: server.token('viewer') }));
  await watcher.synced;
  return watcher;
}

describe('agents in the document’s presence', () => {
  it('[PRES6] shows the model agent, with its model, while it works on a run, and not after', async () => {
    const run = await sentRun(server, 'alpha', ['Make it louder']);
    const watcher = await watch(run.docId);
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const agent = await startTestModelAgent(server, [
      async () => {
        await released;
        return { text: 'Nothing to do.' };
      },
    ]);
    try {
      await waitFor(() => agentsIn(watcher).length === 1, 10_000);
      expect(agentsIn(watcher)).toEqual([expect.objectContaining({ name: modelAgentName, role: 'agent', status: 'working on 1 instruction with fake-model' })]);
      release();
      await waitForState(server, run.runId, 'review', 10_000);
      await waitFor(() => agentsIn(watcher).length === 0, 5000);
    } finally {
      release();
      await agent.stop();
    }
  });

  it('[PRES6] [MCP3] shows an MCP client from claim_run until complete_run', async () => {
    const run = await sentRun(server, 'alpha', ['uppercase']);
    const watcher = await watch(run.docId);
    const session = await connectMcp(server.url, server.token('agent', { name: 'Desk assistant' }));
    try {
      expect((await session.call('claim_run', { runId: run.runId })).isError).toBe(false);
      await waitFor(() => agentsIn(watcher).length === 1, 10_000);
      expect(agentsIn(watcher)).toEqual([expect.objectContaining({ name: 'Desk assistant', role: 'agent', status: 'working on 1 instruction' })]);
      expect((await session.call('complete_run', { runId: run.runId })).answer).toEqual({ state: 'review' });
      await waitFor(() => agentsIn(watcher).length === 0, 5000);
    } finally {
      await session.close();
    }
  });
});
