import { describe, expect, it } from 'vitest';
import { answerModelAside, answerSoFar } from '../../agents/model/aside.ts';
import { RunState } from '../../agents/model/run-state.ts';
import { RunConversation, type ModelProvider, type ModelRequest } from '../../agents/model/tool-loop.ts';
import type { AgentApiClient } from '../../agents/agent-api-client.ts';

describe('a side answer as it streams in', () => {
  it('[ASIDE5] shows the answer so far only once the route is known, leaving out a handoff line', () => {
    const cases: [string, string | null][] = [
      ['', null],
      ['route: si', null],
      ['route: side\n', null],
      ['route: side\nIt is on', 'It is on'],
      ['route: side\n\nIt is on item 2.', 'It is on item 2.'],
      ['route: agent\nYou are right', null],
      ['route: side\nhand', null],
      ['route: side\nhandoff: Shorten the intro', null],
      ['route: side\nhandoff: Shorten the intro\nIt is', 'It is'],
      ['route: side\nHalf done.', 'Half done.'],
      ['No route line\nand more', 'No route line\nand more'],
    ];
    for (const [snapshot, shown] of cases) expect([snapshot, answerSoFar(snapshot)]).toEqual([snapshot, shown]);
  });

  it('[ASIDE5] posts the model’s answer in chunks while it streams, then the whole answer with done', async () => {
    const reply = 'route: side\nhandoff: Shorten the intro\nIt is on item 2 of 3.';
    let release!: () => void;
    const provider: ModelProvider = {
      where: 'scripted',
      async complete(_request: ModelRequest, _signal: AbortSignal, onText?: (text: string) => void) {
        // The reply arrives in three pieces; the last one after the first chunk was posted.
        onText?.(reply.slice(0, 45));
        onText?.(reply.slice(0, 52));
        await new Promise<void>((resolve) => (release = resolve));
        onText?.(reply);
        return { content: reply, toolCalls: [] };
      },
    };
    const posts: Record<string, unknown>[] = [];
    const client = {
      async answerAside(_runId: string, _asideId: string, body: Record<string, unknown>) {
        posts.push(body);
        if (posts.length === 1) setTimeout(() => release(), 0);
        return { open: true };
      },
    } as unknown as AgentApiClient;
    const conversation = new RunConversation();
    conversation.latestRequest = { system: 'system', tools: [], messages: [{ role: 'user', content: 'the run' }] };
    await answerModelAside({
      client,
      provider,
      conversation,
      context: { client, state: new RunState('r1', 'd1', new Set(['i1'])), tools: [] },
      aside: { asideId: 'a1', kind: 'question', text: 'How far along?', askedBy: { id: 'ana', name: 'Ana' } },
      signal: new AbortController().signal,
      log: () => {},
    });
    const chunks = posts.filter((post) => 'chunk' in post).map((post) => post.chunk);
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    expect(chunks.join('')).toBe('It is on item 2 of 3.');
    expect(posts.at(-1)).toEqual({ answer: 'It is on item 2 of 3.', done: true, route: 'side', handoff: 'Shorten the intro' });
    expect(posts.findIndex((post) => 'done' in post)).toBe(posts.length - 1);
  });
});
