/**
 * Typed transaction origins (ORIGIN1). Every write to a Y.Doc goes through `ydoc.transact(fn, origin)`
 * with one of these, so that observers and undo managers can tell writers apart.
 *
 * Origins are compared by identity (Y.UndoManager's `trackedOrigins`), so a run keeps one
 * origin object for its whole life: create it once with `runOrigin(runId)`.
 */

export type Origin =
  | { readonly kind: 'import' }
  | { readonly kind: 'server' }
  | { readonly kind: 'run'; readonly runId: string }
  | { readonly kind: 'revert'; readonly runId: string }
  | { readonly kind: 'version' };

/** Content created from Markdown or HTML when a document is made. */
export const importOrigin: Origin = Object.freeze({ kind: 'import' });

/** Bookkeeping the server writes on its own behalf (instruction states, run mirror). */
export const serverOrigin: Origin = Object.freeze({ kind: 'server' });

/** The one transaction that restores a version of the text (HIST4). */
export const versionOrigin: Origin = Object.freeze({ kind: 'version' });

export function runOrigin(runId: string): Origin {
  return Object.freeze({ kind: 'run', runId });
}

/** The one transaction that reverts an accepted run (REV8); not tracked by the run's undo manager. */
export function revertOrigin(runId: string): Origin {
  return Object.freeze({ kind: 'revert', runId });
}

export function isOrigin(value: unknown): value is Origin {
  if (typeof value !== 'object' || value === null) return false;
  const kind = (value as { kind?: unknown }).kind;
  return kind === 'import' || kind === 'server' || kind === 'run' || kind === 'revert' || kind === 'version';
}
