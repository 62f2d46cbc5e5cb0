import type { Refusal } from '../agent-api-client.ts';

/**
 * What the model agent remembers within one run: the hash of each block as a read tool last
 * showed it, and the refusals the model gave. The model never sees a hash: a write names a
 * block, and the hash it is sent with is the one read here [MODEL2].
 */
export class RunState {
  private readonly hashes = new Map<string, string>();
  private readonly refused = new Map<string, string>();
  private batches = 0;

  constructor(
    readonly runId: string,
    readonly docId: string,
    /** The instructions of the run, by id. */
    readonly instructionIds: ReadonlySet<string>,
  ) {}

  remember(blockId: string, hash: string): void {
    this.hashes.set(blockId, hash);
  }

  /** The hash of `blockId` as read in this run, or undefined when it was not read (or is stale). */
  hashOf(blockId: string): string | undefined {
    return this.hashes.get(blockId);
  }

  /** The block changed (written, or refused as stale): the model must read it again. */
  forget(blockId: string): void {
    this.hashes.delete(blockId);
  }

  refuse(instructionId: string, reason: string): void {
    this.refused.set(instructionId, reason);
  }

  refusals(): Refusal[] {
    return [...this.refused].map(([instructionId, reason]) => ({ instructionId, reason }));
  }

  /** A fresh idempotency key for the next batch of this claim. */
  nextBatchKey(): string {
    return `${this.runId}:model:${++this.batches}`;
  }
}
