import type { Refusal } from '../agent-api-client.ts';

/**
 * What the model agent remembers within one run: the hash of each block as a read tool last
 * showed it, the refusals the model gave and the instructions a write of this run answered. The
 * model never sees a hash: a write names a block, and the hash it is sent with is the one read
 * here [MODEL2]. An instruction is either changed or refused, never both [MODEL3].
 */
/** VAR1: how many answers each item of a claimed run asks for, by instruction id. */
export function variantsWantedOf(run: { items: readonly { instructionId: string; variantsWanted?: number }[] }): Map<string, number> {
  return new Map(run.items.map((item) => [item.instructionId, item.variantsWanted ?? 1]));
}

export class RunState {
  private readonly hashes = new Map<string, string>();
  private readonly refused = new Map<string, string>();
  private readonly changed = new Set<string>();
  private batches = 0;

  constructor(
    readonly runId: string,
    readonly docId: string,
    /** The instructions of the run, by id. */
    readonly instructionIds: ReadonlySet<string>,
    /** VAR1: how many answers each instruction asks for, by id; one when absent. */
    private readonly variantsWanted: ReadonlyMap<string, number> = new Map(),
  ) {}

  /** How many answers instruction `instructionId` asks for (VAR1). */
  variantsOf(instructionId: string): number {
    return this.variantsWanted.get(instructionId) ?? 1;
  }

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

  isRefused(instructionId: string): boolean {
    return this.refused.has(instructionId);
  }

  /** A batch answering `instructionId` was applied. */
  markChanged(instructionId: string): void {
    this.changed.add(instructionId);
  }

  hasChanged(instructionId: string): boolean {
    return this.changed.has(instructionId);
  }

  refusals(): Refusal[] {
    return [...this.refused].map(([instructionId, reason]) => ({ instructionId, reason }));
  }

  /** A fresh idempotency key for the next batch of this claim. */
  nextBatchKey(): string {
    return `${this.runId}:model:${++this.batches}`;
  }
}

/** MODEL3: the answer to a write for an instruction the model refused; nothing is sent. */
export function alreadyRefused(id: string): { error: { code: string; message: string } } {
  return { error: { code: 'ALREADY_REFUSED', message: `You refused instruction "${id}" in this run: it cannot be changed as well.` } };
}

/** MODEL3: the answer to `refuse` for an instruction a write of this run answered. */
export function alreadyChanged(id: string): { error: { code: string; message: string } } {
  return {
    error: { code: 'ALREADY_CHANGED', message: `Instruction "${id}" has a change in this run: it cannot be refused as well. Say in your summary what is left undone.` },
  };
}
