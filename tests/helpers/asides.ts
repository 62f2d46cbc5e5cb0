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
