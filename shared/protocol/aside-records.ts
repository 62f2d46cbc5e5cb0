import type * as Y from 'yjs';
import { runsParts } from '../model/doc-layout.ts';
import { AsideRecord } from '../wire/asides.ts';
import { readWire } from '../wire/parse.ts';
import { migrateRecord } from '../model/schema-versions.ts';

/** The asides mirrored in a `<id>/runs` Y.Doc (of run `runId` only, when given), oldest first; records that do not parse are skipped. */
export function readAsides(runsYdoc: Y.Doc, runId?: string): AsideRecord[] {
  const records: AsideRecord[] = [];
  for (const value of runsParts(runsYdoc).asides.values()) {
    // VER5: an older version is read as the current one; a newer one for the fields known here.
    const migrated = value && typeof value === 'object' ? migrateRecord('aside', value as Record<string, unknown>) : null;
    const read = readWire(AsideRecord, migrated?.record ?? value);
    if (read.ok && (runId === undefined || read.value.runId === runId)) records.push(read.value);
  }
  return records.sort((a, b) => a.askedAt.localeCompare(b.askedAt) || a.asideId.localeCompare(b.asideId));
}
