import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { readRunWorkOrders } from './api.ts';

/**
 * The work orders of runs that the `<id>/runs` mirror no longer holds (it keeps the outstanding
 * run and the newest finished ones, server/runs/run-mirror.ts), read with `GET /api/runs/:runId`
 * when first asked for and kept for the page's life: a run's work orders never change after
 * Send. A read that failed (offline) is asked again after `retryFailed`.
 */
export class OlderWorkOrders implements ReactiveController {
  /** By run id: instruction id → work order, or whether the read is under way or failed. */
  private readonly known = new Map<string, ReadonlyMap<string, string> | 'reading' | 'failed'>();

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly token: () => string,
  ) {
    host.addController(this);
  }

  hostConnected(): void {}

  /** The work order instruction `instructionId` went with in run `runId`; null until read (the read starts here). */
  workOrder(runId: string, instructionId: string): string | null {
    const entry = this.known.get(runId);
    if (entry === undefined) {
      this.known.set(runId, 'reading');
      void this.read(runId);
      return null;
    }
    return typeof entry === 'string' ? null : (entry.get(instructionId) ?? null);
  }

  /** Lets the runs whose read failed be read again at their next `workOrder`. */
  retryFailed(): void {
    for (const [runId, entry] of this.known) if (entry === 'failed') this.known.delete(runId);
  }

  private async read(runId: string): Promise<void> {
    try {
      const run = await readRunWorkOrders(this.token(), runId);
      this.known.set(runId, new Map(run.items.map((item) => [item.instructionId, item.instruction])));
      this.host.requestUpdate();
    } catch {
      this.known.set(runId, 'failed');
    }
  }
}
