import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as Y from 'yjs';

/** `[position, deleted, inserted]`: like `Array.splice` on the characters of the text. */
export type Patch = [number, number, string];

export interface SequentialTrace {
  startContent: string;
  endContent: string;
  txns: { patches: Patch[] }[];
}

export interface ConcurrentTrace {
  endContent: string;
  numAgents: number;
  /** `parents`: indexes of earlier transactions whose merged state this one applies to. */
  txns: { parents: number[]; agent: number; patches: Patch[] }[];
}

/** Where the recorded editing traces live: `bench/data/editing-traces` (see its README for the licence). */
export function traceDir(repoRoot: string): string {
  return resolve(repoRoot, 'bench', 'data', 'editing-traces');
}

export function traceAvailable(repoRoot: string, name: string): boolean {
  return existsSync(resolve(traceDir(repoRoot), `${name}.json.gz`));
}

export function readTrace<T>(repoRoot: string, name: string): T {
  return JSON.parse(gunzipSync(readFileSync(resolve(traceDir(repoRoot), `${name}.json.gz`))).toString('utf8')) as T;
}

/** Applies one transaction's patches to `ytext`, in order, as one Yjs transaction. */
export function applyPatches(ydoc: Y.Doc, ytext: Y.XmlText, patches: readonly Patch[]): void {
  ydoc.transact(() => {
    for (const [position, deleted, inserted] of patches) {
      if (deleted > 0) ytext.delete(position, deleted);
      if (inserted) ytext.insert(position, inserted);
    }
  });
}

/** The text after the first `count` transactions, computed on a plain string (the reference). */
export function expectedText(trace: SequentialTrace, count: number): string {
  if (count >= trace.txns.length) return trace.endContent;
  let text = trace.startContent;
  for (let index = 0; index < count; index++) {
    for (const [position, deleted, inserted] of trace.txns[index].patches) {
      text = text.slice(0, position) + inserted + text.slice(position + deleted);
    }
  }
  return text;
}

/**
 * For each transaction of a concurrent trace, how many transactions of each agent it has seen
 * (its parents and all their ancestors): `seen[i * agents + a]`. Each agent's own transactions
 * form a chain, so "seen" is always a prefix of every agent's transactions.
 */
export function causalVersions(trace: ConcurrentTrace): { seen: Int32Array; indexInAgent: Int32Array } {
  const agents = trace.numAgents;
  const seen = new Int32Array(trace.txns.length * agents);
  const indexInAgent = new Int32Array(trace.txns.length);
  const counts = new Int32Array(agents);
  for (const [index, txn] of trace.txns.entries()) {
    indexInAgent[index] = counts[txn.agent]++;
    for (const parent of txn.parents) {
      for (let agent = 0; agent < agents; agent++) {
        seen[index * agents + agent] = Math.max(seen[index * agents + agent], seen[parent * agents + agent]);
      }
      const parentAgent = trace.txns[parent].agent;
      seen[index * agents + parentAgent] = Math.max(seen[index * agents + parentAgent], indexInAgent[parent] + 1);
    }
  }
  return { seen, indexInAgent };
}
