import type { AsideRecord } from '../../shared/wire/asides.ts';

/** One aside as the board keeps it while its run is claimed. */
export interface BoardAside {
  record: AsideRecord;
  docId: string;
  /** Mirrored for the people (ASIDE6); a question's fallback steer is for the agent only. */
  mirrored: boolean;
}

/**
 * What one person (the asker's token subject, `askedBy.id`) may hold on one run: asides in all,
 * and questions not yet answered at once (ASIDE3). Nothing counts across people, so nobody's
 * asides can use up another's.
 */
export interface AsideLimits {
  total: number;
  openQuestions: number;
}

export type AddOutcome = 'added' | 'too-many' | 'too-many-open';

/**
 * Where the asides of claimed runs are kept (ASIDE8), for every server instance that shares
 * the store: the person may ask on one instance and the agent read and answer on another
 * (SCALE5). The AsideService holds the waiting and the rules; the board holds the asides and
 * says when one was added or changed, here or on another instance. A question is open while
 * its record is not `done`.
 */
export interface AsideBoard {
  /** Whether other instances may change the asides too (then their mirror writes may race this one's). */
  readonly shared: boolean;
  /** Adds `aside` unless its asker holds `limits.total` asides on its run, or (a question) `limits.openQuestions` open ones. */
  add(aside: BoardAside, limits: AsideLimits): Promise<AddOutcome>;
  /** The asides of `runId` not yet handed out, oldest first; each is handed out once. */
  takeUndelivered(runId: string): Promise<BoardAside[]>;
  get(asideId: string): Promise<BoardAside | null>;
  /** The run's questions whose answer is not done, oldest first. */
  openQuestions(runId: string): Promise<BoardAside[]>;
  /**
   * Changes an aside at one time for all instances: `change` receives its record as it is now
   * and returns the new record, or null to leave it. When it changes, `follow` (if given) makes
   * an aside that is added in the same step, whatever the run's limits, so that nobody told of
   * the change finds the board without it. Null when there is no such aside.
   */
  update(
    asideId: string,
    change: (record: AsideRecord) => AsideRecord | null,
    follow?: (record: AsideRecord) => BoardAside,
  ): Promise<{ aside: BoardAside; changed: boolean } | null>;
  /** Forgets every aside of `runId` (its run left `claimed`). */
  dropRun(runId: string): Promise<void>;
  /** Calls `listener(runId, asideId)` once an aside was added or changed, on this instance or another. Returns the unsubscribe. */
  onChanged(listener: (runId: string, asideId: string) => void): () => void;
}

/** The board of one process: asides in memory, as a store only one instance uses keeps them. */
export function memoryAsideBoard(): AsideBoard {
  /** By run, in the order they were added. */
  const runs = new Map<string, Map<string, { aside: BoardAside; delivered: boolean }>>();
  const byId = new Map<string, string>();
  const listeners = new Set<(runId: string, asideId: string) => void>();
  const changed = (runId: string, asideId: string) => {
    for (const listener of listeners) listener(runId, asideId);
  };
  const copy = (aside: BoardAside): BoardAside => ({ ...aside, record: { ...aside.record, askedBy: { ...aside.record.askedBy } } });

  return {
    shared: false,
    async add(aside, limits) {
      const { runId, asideId, askedBy } = aside.record;
      let run = runs.get(runId);
      const theirs = [...(run?.values() ?? [])].filter((entry) => entry.aside.record.askedBy.id === askedBy.id);
      if (theirs.length >= limits.total) return 'too-many';
      if (aside.record.kind === 'question' && theirs.filter((entry) => isOpenQuestion(entry.aside)).length >= limits.openQuestions) return 'too-many-open';
      if (!run) runs.set(runId, (run = new Map()));
      run.set(asideId, { aside: copy(aside), delivered: false });
      byId.set(asideId, runId);
      changed(runId, asideId);
      return 'added';
    },
    async takeUndelivered(runId) {
      const taken: BoardAside[] = [];
      for (const entry of runs.get(runId)?.values() ?? []) {
        if (entry.delivered) continue;
        entry.delivered = true;
        taken.push(copy(entry.aside));
      }
      return taken;
    },
    async get(asideId) {
      const entry = entryOf(asideId);
      return entry ? copy(entry.aside) : null;
    },
    async openQuestions(runId) {
      return [...(runs.get(runId)?.values() ?? [])].filter((entry) => isOpenQuestion(entry.aside)).map((entry) => copy(entry.aside));
    },
    async update(asideId, change, follow) {
      const entry = entryOf(asideId);
      if (!entry) return null;
      const next = change(copy(entry.aside).record);
      if (next === null) return { aside: copy(entry.aside), changed: false };
      entry.aside = { ...entry.aside, record: next };
      const followed = follow?.(next);
      if (followed) {
        runs.get(next.runId)?.set(followed.record.asideId, { aside: copy(followed), delivered: false });
        byId.set(followed.record.asideId, next.runId);
      }
      changed(next.runId, asideId);
      if (followed) changed(next.runId, followed.record.asideId);
      return { aside: copy(entry.aside), changed: true };
    },
    async dropRun(runId) {
      for (const asideId of runs.get(runId)?.keys() ?? []) byId.delete(asideId);
      runs.delete(runId);
    },
    onChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };

  function entryOf(asideId: string) {
    const runId = byId.get(asideId);
    return runId === undefined ? undefined : runs.get(runId)?.get(asideId);
  }
}

/** A question whose answer is not done yet: it counts against `openQuestions`. */
export function isOpenQuestion(aside: BoardAside): boolean {
  return aside.record.kind === 'question' && !aside.record.done;
}
