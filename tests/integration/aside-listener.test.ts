import { describe, expect, it } from 'vitest';
import { AgentApiClient, type AgentAside } from '../../agents/agent-api-client.ts';
import { listenForAsides } from '../../agents/aside-listener.ts';
import { agentApi, sentRun } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * The agents' aside listener against the real server: what it asks of the asides route while a
 * run is worked on, and as the run ends.
 */

const server = useTestServer();

/** An agent client that records each asides look it makes: the wait asked for, and whether it was cut short. */
class ObservedClient extends AgentApiClient {
  readonly looks: { waitSeconds: number; cut: boolean }[] = [];
  private onLook: () => void = () => {};
  readonly firstLook = new Promise<void>((resolve) => (this.onLook = resolve));

  override asides(runId: string, waitSeconds = 0, signal?: AbortSignal): Promise<AgentAside[]> {
    const look = { waitSeconds, cut: false };
    this.looks.push(look);
    this.onLook();
    return super.asides(runId, waitSeconds, signal).catch((error) => {
      look.cut = signal?.aborted ?? false;
      throw error;
    });
  }
}

async function claimed() {
  const run = await sentRun(server, 'alpha\n\nbeta', ['Make it louder']);
  const token = server.token('agent');
  expect((await agentApi(server, token).claim(run.runId)).status).toBe(200);
  return { ...run, client: new ObservedClient(server.url, token, null) };
}

describe('the aside listener', () => {
  it('[ASIDE8] cuts its long poll short as the run finishes and takes one last look that waits for nothing', async () => {
    const run = await claimed();
    const answered: string[] = [];
    const listener = listenForAsides({ client: run.client, runId: run.runId, pollSeconds: 25, log: () => {}, answer: async (aside) => void answered.push(aside.text) });
    await run.client.firstLook;
    await listener.finish(20_000);
    expect(run.client.looks).toEqual([
      { waitSeconds: 25, cut: true },
      { waitSeconds: 0, cut: false },
    ]);
    expect(answered).toEqual([]);
  });
});
