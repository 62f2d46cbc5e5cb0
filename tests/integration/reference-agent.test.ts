import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { main } from '../../server/cli.ts';
import { startReferenceAgent } from '../../agents/reference/reference-agent.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import { readRunRecords } from '../../shared/protocol/run-record.ts';
import { startTestReferenceAgent } from '../helpers/agents.ts';
import { connectPeer, waitFor } from '../helpers/peer.ts';
import { markdownOf, sentRun, waitForState } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * The built-in reference agent end to end, over HTTP only (docs/api.md, "The reference
 * agent"): in the test process as `npm start` runs it, and as `npx tandem agent`.
 */

const server = useTestServer();
const bin = fileURLToPath(new URL('../../bin/tandem.mjs', import.meta.url));

const markdown = 'alpha\n\nbeta\n\ncatalogue a\n\ndelta\n\nepsilon';
const instructions = ['uppercase', 'delete', 'replace "a" with "b"', 'insert "x" after', 'make it sing'];

describe('the reference agent', () => {
  it('answers a run of five instructions: four changed, one refused with its reason', async () => {
    const agent = startTestReferenceAgent(server);
    try {
      const doc = await sentRun(server, markdown, instructions);
      const run = await waitForState(server, doc.runId, 'review', 10_000);
      expect(await markdownOf(server, doc.docId)).toBe('ALPHA\n\ncbtblogue b\n\ndelta\n\nx\n\nepsilon');
      expect(run.items.map((item) => item.outcome)).toEqual(['changed', 'changed', 'changed', 'changed', 'refused']);
      expect(run.items[4].reason).toMatch(/^I did not understand this instruction\. I understand: replace "A" with "B"/);
      expect(run.changes.map((change) => change.op)).toEqual(['replace_block', 'delete_block', 'replace_block', 'insert_after']);
      expect(run).toMatchObject({
        claimedBy: { id: 'reference-agent', name: 'Reference agent' },
        lease: null,
        summary: 'Answered 4 of 5 instructions; refused 1.',
      });
      // The agent reports after the server has recorded the answer, so its message may come later.
      await waitFor(() => agent.messages.includes(`run ${doc.runId}: Answered 4 of 5 instructions; refused 1.`));
    } finally {
      await agent.stop();
    }
  });

  it('shows itself in the document while it works, and leaves when done', async () => {
    const doc = await sentRun(server, markdown, ['uppercase', 'lowercase']);
    const watcher = connectPeer({ wsUrl: server.wsUrl, name: doc.docId, token: server.token('viewer') });
    server.track(watcher);
    await watcher.synced;
    const seen: unknown[] = [];
    const agentsPresent = () =>
      [...watcher.provider.awareness!.getStates().values()].filter((state) => (state.user as { role?: string } | undefined)?.role === 'agent');
    watcher.provider.awareness!.on('change', () => seen.push(...agentsPresent().map((state) => state.user)));
    const agent = startTestReferenceAgent(server);
    try {
      await waitForState(server, doc.runId, 'review', 10_000);
      expect(seen).toContainEqual({ name: 'Reference agent', role: 'agent', color: expect.stringMatching(/^#/), status: 'working on 2 instructions' });
      await waitFor(() => agentsPresent().length === 0, 5000);
    } finally {
      await agent.stop();
    }
  });

  it('runs as a separate process with `tandem agent --url URL --token TOKEN` until Ctrl-C', async () => {
    const token = server.token('agent', { sub: 'cli-agent', name: 'Reference agent' });
    const child = spawn(process.execPath, [bin, 'agent', '--url', server.url, '--token', token], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const doc = await sentRun(server, markdown, ['uppercase']);
      const runs = connectPeer({ wsUrl: server.wsUrl, name: docName(doc.docId, 'runs'), token: server.token('viewer') });
      server.track(runs);
      await waitFor(() => readRunRecords(runs.ydoc).runs[0]?.state === 'review', 15_000);
      expect(readRunRecords(runs.ydoc).runs[0].claimedBy).toEqual({ id: 'cli-agent', name: 'Reference agent' });
      expect(output).toContain(`Reference agent working for ${server.url}`);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  });

  it('gives up, saying why, when the server refuses its token', async () => {
    const agent = startReferenceAgent({ url: server.url, token: server.token('editor'), pollSeconds: 1 });
    await expect(agent.done).rejects.toThrow("The server refused the agent's token");
  });
});

describe('the tandem command', () => {
  function stderrOf(run: () => Promise<unknown>): Promise<string> {
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    return run().finally(() => spy.mockRestore()).then(() => written.join(''));
  }

  it.each([
    [['agent', '--url', 'http://127.0.0.1:1'], '--token'],
    [['agent', '--url', 'nowhere', '--token', 't'], 'not a URL'],
  ])('refuses `tandem %s` with exit code 2', async (args, message) => {
    let code: number | null = null;
    const errors = await stderrOf(async () => (code = await main(args)));
    expect(code).toBe(2);
    expect(errors).toContain(message);
  });

  it('refuses to start with an unknown TANDEM_AGENT, saying what it takes', async () => {
    const before = process.env.TANDEM_AGENT;
    process.env.TANDEM_AGENT = 'gpt';
    let code: number | null = null;
    try {
      const errors = await stderrOf(async () => (code = await main(['start'])));
      expect(errors).toBe('TANDEM_AGENT must be "reference" (the built-in agent), "openai" or "anthropic" (the model agent) or "off" (no agent), not "gpt"\n');
    } finally {
      if (before === undefined) delete process.env.TANDEM_AGENT;
      else process.env.TANDEM_AGENT = before;
    }
    expect(code).toBe(2);
  });
});
