import type * as Y from 'yjs';
import { readRunRecords, type RunRecord } from '../shared/run-record.ts';

/**
 * What the page says about a document's runs, read from the server-written `<id>/runs` Y.Doc
 * through the shared parser (records that do not parse are skipped).
 */

/** Every readable run, newest first. */
export function readRuns(runsYdoc: Y.Doc): RunRecord[] {
  return readRunRecords(runsYdoc).runs;
}

/** One line about the newest run while it is outstanding (or just failed); null otherwise. */
export function runIndication(runs: readonly RunRecord[]): string | null {
  const latest = runs[0];
  if (!latest) return null;
  const count = latest.items.length;
  const what = count === 1 ? '1 instruction' : `${count} instructions`;
  switch (latest.state) {
    case 'queued':
      return `Run sent (${what}) · waiting for an agent`;
    case 'claimed':
      return `An agent is working on the run (${what})`;
    case 'review':
      return 'The run is ready for review';
    case 'failed':
      return latest.error ? `The last run failed: ${latest.error}` : 'The last run failed';
    default:
      return null;
  }
}
