import type { afterLoadDocumentPayload, Extension } from '@hocuspocus/server';
import { parseDocName } from '../../shared/model/doc-layout.ts';
import { mirrorWindow, writeRunRecords } from '../runs/run-mirror.ts';
import { toRunRecord, type RunStore } from '../store/run-store.ts';
import { extensionPriority } from '../sync/extension-priorities.ts';

/**
 * When a `<id>/runs` document loads, brings its mirror in line with the run store before anyone
 * reads it, so a change of the store that was not mirrored (say, the server stopped between the
 * two) shows up at the next load. It reads only the runs the mirror holds (the outstanding one
 * the newest finished ones and the last decided ones, server/runs/run-mirror.ts), however many the document has had.
 */
export class RunMirrorLoad implements Extension {
  extensionName = 'TandemRunMirrorLoad';
  priority = extensionPriority.runMirrorLoad;

  constructor(private readonly runs: RunStore) {}

  async afterLoadDocument({ documentName, document }: afterLoadDocumentPayload): Promise<void> {
    const target = parseDocName(documentName);
    if (target?.part !== 'runs') return;
    writeRunRecords(document, (await this.runs.mirroredRuns(target.docId, mirrorWindow)).map(toRunRecord));
  }
}
