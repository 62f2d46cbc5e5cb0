import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { Task, TaskStatus } from '@lit/task';
import { ApiError, decideRun, type RunDecision } from './api.ts';

type DecideArgs = readonly [token: string, runId: string, decision: RunDecision, reason: string | undefined];

/**
 * Accepts or discards a run in review (`POST /api/runs/:runId/accept|discard`, run as a task) and
 * keeps what the page says about it: `busy` while the request is out, `problem` when it was
 * refused. The run leaves review by itself, through the `<id>/runs` mirror; until it does,
 * `decided` names it, so that its buttons stay disabled after the server said yes.
 */
export class RunDecider implements ReactiveController {
  /** The run the server has accepted or discarded at this person's request. */
  decided: string | null = null;
  /** The request of the task's last run. */
  private asked: { runId: string; decision: RunDecision } | null = null;
  /** The last failure has been put aside (the host left the page after it came). */
  private dismissed = false;
  private readonly task: Task<DecideArgs, string>;

  constructor(host: ReactiveControllerHost) {
    host.addController(this);
    this.task = new Task(host, {
      autoRun: false,
      task: async ([token, runId, decision, reason]: DecideArgs) => {
        await decideRun(token, runId, decision, reason);
        return runId;
      },
      onComplete: (runId) => (this.decided = runId),
      onError: () => (this.dismissed = false),
    });
  }

  /** The decision whose request is out, or null. */
  get busy(): RunDecision | null {
    return this.task.status === TaskStatus.PENDING ? (this.asked?.decision ?? null) : null;
  }

  /** Why the last request failed, in the server's words; null when it did not. */
  get problem(): string | null {
    if (this.task.status !== TaskStatus.ERROR || this.dismissed || !this.asked) return null;
    return describe(this.task.error, this.asked.decision);
  }

  hostDisconnected(): void {
    this.dismissed = true;
  }

  /** The problem to show for `runId` (a problem with another run is not shown). */
  problemWith(runId: string): string | null {
    return this.asked?.runId === runId ? this.problem : null;
  }

  /** Resolves true when the server carried out the decision. `reason`: see `decideRun`. */
  async decide(token: string, runId: string, decision: RunDecision, reason?: string): Promise<boolean> {
    if (this.busy || this.decided === runId) return false;
    this.asked = { runId, decision };
    this.dismissed = false;
    await this.task.run([token, runId, decision, reason]);
    return this.task.status === TaskStatus.COMPLETE;
  }
}

function describe(error: unknown, decision: RunDecision): string {
  const what = decision === 'accept' ? 'accepted' : 'discarded';
  if (!(error instanceof ApiError)) return `The run could not be ${what}.`;
  if (error.code === 'OFFLINE') return `The run could not be ${what}: the server cannot be reached.`;
  return error.message;
}
