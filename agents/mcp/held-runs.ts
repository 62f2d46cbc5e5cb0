import type { AgentApiClient, ClaimedRun } from '../agent-api-client.ts';
import { RunState, variantsWantedOf } from '../model/run-state.ts';
import { keepLeaseAlive } from './lease-keeper.ts';

/** A run this MCP server claimed and has neither completed nor failed: what the model tools read and write. */
export interface HeldRun {
  claimed: ClaimedRun;
  state: RunState;
}

/**
 * The runs claimed through one MCP session, each with its lease kept alive until it is
 * completed, failed, lost or given back [MCP4, MCP5].
 */
export class HeldRuns {
  private readonly runs = new Map<string, HeldRun & { lease: { stop(): void }; presence: { leave(): void } | null }>();
  /** Runs whose lease was found gone, with the server's message, so a later call can say why. */
  private readonly lost = new Map<string, string>();

  /** `join`: shows the agent in the run's document while the run is held (as the built-in agents do), or null. */
  constructor(
    private readonly client: AgentApiClient,
    private readonly join: (claimed: ClaimedRun) => { leave(): void } | null = () => null,
  ) {}

  hold(claimed: ClaimedRun): HeldRun {
    this.release(claimed.runId);
    this.lost.delete(claimed.runId);
    const state = new RunState(claimed.runId, claimed.docId, new Set(claimed.items.map((item) => item.instructionId)), variantsWantedOf(claimed));
    const lease = keepLeaseAlive(this.client, claimed, (message) => {
      this.release(claimed.runId);
      this.lost.set(claimed.runId, message);
    });
    const held = { claimed, state, lease, presence: this.join(claimed) };
    this.runs.set(claimed.runId, held);
    return held;
  }

  get(runId: string): HeldRun | undefined {
    return this.runs.get(runId);
  }

  /** Why `runId` is no longer held, when its lease was found gone. */
  lostReason(runId: string): string | undefined {
    return this.lost.get(runId);
  }

  /** Stops heartbeating `runId` and forgets it. */
  release(runId: string): void {
    const held = this.runs.get(runId);
    held?.lease.stop();
    held?.presence?.leave();
    this.runs.delete(runId);
  }

  /**
   * Gives every held run back [MCP5]: fails it with `message` (the run lifecycle's only way out
   * of `claimed` other than a lease running out), so people see at once why it stopped.
   */
  async giveAllBack(message: string): Promise<void> {
    const runIds = [...this.runs.keys()];
    for (const runId of runIds) this.release(runId);
    await Promise.allSettled(runIds.map((runId) => this.client.fail(runId, message)));
  }
}
