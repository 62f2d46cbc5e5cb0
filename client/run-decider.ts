import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { ApiError, decideRun, type RunDecision } from './api.ts';

/**
 * Accepts or discards a run in review (`POST /api/runs/:runId/accept|discard`) and keeps what
 * the page says about it: `busy` while the request is out, `problem` when it was refused.
 * The run leaves review by itself, through the `<id>/runs` mirror; until it does, `decided`
 * names it, so that its buttons stay disabled after the server said yes.
 */
export class RunDecider implements ReactiveController {
  busy: RunDecision | null = null;
  /** Why the last request failed, in the server's words; null when it did not. */
  problem: string | null = null;
  /** The run the server has accepted or discarded at this person's request. */
  decided: string | null = null;
  /** The run `problem` is about. */
  private problemFor: string | null = null;

  constructor(private readonly host: ReactiveControllerHost) {
    host.addController(this);
  }

  hostDisconnected(): void {
    this.problem = null;
    this.problemFor = null;
  }

  /** The problem to show for `runId` (a problem with another run is not shown). */
  problemWith(runId: string): string | null {
    return this.problemFor === runId ? this.problem : null;
  }

  /** Resolves true when the server carried out the decision. `reason`: see `decideRun`. */
  async decide(token: string, runId: string, decision: RunDecision, reason?: string): Promise<boolean> {
    if (this.busy || this.decided === runId) return false;
    this.busy = decision;
    this.problem = null;
    this.problemFor = null;
    this.host.requestUpdate();
    try {
      await decideRun(token, runId, decision, reason);
      this.decided = runId;
      return true;
    } catch (error) {
      this.problem = describe(error, decision);
      this.problemFor = runId;
      return false;
    } finally {
      this.busy = null;
      this.host.requestUpdate();
    }
  }
}

function describe(error: unknown, decision: RunDecision): string {
  const what = decision === 'accept' ? 'accepted' : 'discarded';
  if (!(error instanceof ApiError)) return `The run could not be ${what}.`;
  if (error.code === 'OFFLINE') return `The run could not be ${what}: the server cannot be reached.`;
  return error.message;
}
