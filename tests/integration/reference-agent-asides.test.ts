import { describe, expect, it } from 'vitest';
import { docName } from '../../shared/model/doc-layout.ts';
import { readAsides } from '../../shared/protocol/aside-records.ts';
import { cannotSteer } from '../../agents/reference/reference-asides.ts';
import { startTestReferenceAgent } from '../helpers/agents.ts';
import { ask } from '../helpers/asides.ts';
import { waitFor } from '../helpers/peer.ts';
import { sentRun, waitForState } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * Asides to the built-in reference agent, paced so that the run waits before its second
 * instruction until the test has asked what it needs to.
 */

const server = useTestServer();

describe('the reference agent’s asides', () => {
  it('[ASIDE9] answers a question from the run’s state, streamed into the mirror, and says it cannot follow a steer', async () => {
    const doc = await sentRun(server, 'alpha\n\nbeta\n\ngamma', ['uppercase', 'make it sing', 'delete']);
    let reachSecond = () => {};
    const atSecond = new Promise<void>((resolve) => (reachSecond = resolve));
    let goOn = () => {};
    const released = new Promise<void>((resolve) => (goOn = resolve));
    const agent = startTestReferenceAgent(server, {
      presence: false,
      beforeItem: async (index) => {
        if (index !== 1) return;
        reachSecond();
        await released;
      },
    });
    try {
      await atSecond;
      const answer = await ask(server, doc.runId, server.token('commenter', { name: 'Cora' }), { text: 'Where are you at?' });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ route: 'side', answer: 'Working on item 2 of 3: “make it sing”. So far 1 changed, 0 refused.' });

      expect((await ask(server, doc.runId, server.token('editor'), { text: 'Skip the last one.' })).body).toEqual({ route: 'agent' });
      const peer = server.connect(docName(doc.docId, 'runs'));
      await peer.synced;
      await waitFor(() => readAsides(peer.ydoc).length === 2 && readAsides(peer.ydoc).every((aside) => aside.done));
      expect(readAsides(peer.ydoc).map(({ kind, route, answer: text, askedBy }) => ({ kind, route, text, by: askedBy.name }))).toEqual([
        { kind: 'question', route: 'side', text: 'Working on item 2 of 3: “make it sing”. So far 1 changed, 0 refused.', by: 'Cora' },
        { kind: 'steer', route: 'agent', text: cannotSteer, by: expect.any(String) },
      ]);
      goOn();
      const run = await waitForState(server, doc.runId, 'review', 10_000);
      // The steer changed nothing: the run did all three as sent.
      expect(run.items.map((item) => item.outcome)).toEqual(['changed', 'refused', 'changed']);
      await waitFor(() => readAsides(peer.ydoc).length === 0);
    } finally {
      goOn();
      await agent.stop();
    }
  });
});
