import type { AgentApiClient, ClaimedRun } from '../agent-api-client.ts';
import { Rejection } from '../../shared/protocol/rejection.ts';

/**
 * Heartbeats a claimed run three times per lease until `stop()` [MCP4]: an MCP client may think
 * for longer than a lease between two tool calls. A heartbeat answered `409 NOT_CLAIMED` means
 * the lease is gone (run out, or the run was completed or failed elsewhere): `onLost` is called
 * once and the heartbeats stop. Other failures (the server restarting) are retried at the next beat.
 */
export function keepLeaseAlive(client: AgentApiClient, run: ClaimedRun, onLost: (message: string) => void): { stop(): void } {
  const remaining = Number(new Date(run.lease.expiresAt)) - Date.now();
  const every = Math.max(100, Math.floor((Number.isFinite(remaining) ? remaining : 30_000) / 3));
  const timer = setInterval(() => {
    client.heartbeat(run.runId).catch((error: unknown) => {
      if (!(error instanceof Rejection && error.code === 'NOT_CLAIMED')) return;
      clearInterval(timer);
      onLost(error.message);
    });
  }, every);
  return { stop: () => clearInterval(timer) };
}
