import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/use-test-server.ts';
import { startTestReferenceAgent } from '../helpers/agents.ts';
import type { RunningAgent } from '../../agents/reference/reference-agent.ts';
import { useBrowser, pinAnnotation } from '../helpers/browser.ts';

/* RUN7 in the app: the queue bar says when no agent would take a run, and which agent would once one connects. */

const server = useTestServer();
const people = useBrowser(server);

describe('the queue bar and the agents', () => {
  it('[RUN7] says `No agent is connected` beside Send until an agent asks for work, then names it', async () => {
    const id = await server.createDoc('Agents', 'Some words to work on.');
    const alice = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
    let agent: RunningAgent | null = null;
    try {
      await pinAnnotation(alice.page, 'instruction', 'Some words', 'uppercase');
      const bar = alice.page.getByRole('region', { name: 'Instructions for the agent' });
      await bar.getByRole('button', { name: 'Send 1 to agent' }).waitFor();
      await bar.getByText('No agent is connected').waitFor();

      agent = startTestReferenceAgent(server, { pollSeconds: 1 });
      await bar.getByText('No agent is connected').waitFor({ state: 'detached', timeout: 15_000 });
      await bar.getByText('Agent connected: Reference agent', { exact: true }).waitFor();
      expect(await bar.getByRole('button', { name: 'Send 1 to agent' }).isDisabled()).toBe(false);
    } finally {
      await agent?.stop();
      await alice.context.close();
    }
  });
});
