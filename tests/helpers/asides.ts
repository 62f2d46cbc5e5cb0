import type { AsideRecord } from '../../shared/wire/asides.ts';
import type { ApiResponse, TestServer } from './server.ts';

type ApiServer = Pick<TestServer, 'api'>;

/** A person's aside (`POST /api/runs/:runId/asides`) with `token`. */
export function ask(server: ApiServer, runId: string, token: string, body: unknown): Promise<ApiResponse> {
  return server.api(`/api/runs/${runId}/asides`, { method: 'POST', token, body });
}

/** The agent side of asides, with an agent's `token`. */
export function asideAgent(server: ApiServer, token: string) {
  return {
    poll: (runId: string, wait = 0) => server.api(`/api/agent/runs/${runId}/asides${wait ? `?wait=${wait}` : ''}`, { token }),
    answer: (runId: string, asideId: string, body: unknown) =>
      server.api(`/api/agent/runs/${runId}/asides/${asideId}/answer`, { method: 'POST', token, body }),
  };
}

/** An aside record as the server writes it, with `changes`: a question asked by Ed, not yet answered. */
export function asideRecord(changes: Partial<AsideRecord> = {}): AsideRecord {
  return {
    asideId: 'aside-1',
    runId: 'run-1',
    kind: 'question',
    text: 'Any news?',
    askedBy: { id: 'ed', name: 'Ed' },
    askedAt: '2026-12-01T12:00:00.000Z',
    route: null,
    answer: '',
    handoff: null,
    done: false,
    note: null,
    cachedShare: null,
    ...changes,
  };
}
