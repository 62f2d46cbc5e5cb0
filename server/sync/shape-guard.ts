import { messageYjsSyncStep2, messageYjsUpdate } from 'y-protocols/sync';
import type { beforeSyncPayload, Extension } from '@hocuspocus/server';
import { parseDocName, topLevelNames } from '../../shared/model/doc-layout.ts';
import { defaultShapeLimits, inspectUpdate, type ShapeLimits, type ShapeRule } from './update-shape.ts';
import { extensionPriority } from './extension-priorities.ts';

/** Close codes: a refused shape, a value too large, and Hocuspocus's "reconnect and sync afresh". */
const forbiddenCode = 4403;
const tooLargeCode = 4413;
const resetCode = 4205;

const closeCodes: Partial<Record<ShapeRule, number>> = { SHAPE3: tooLargeCode };

/** Thrown from the hook: Hocuspocus closes the connection with `code` and sends `reason` to the provider. */
export class ShapeRefused extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'ShapeRefused';
    // Hocuspocus logs the error it closes a connection for; an expected refusal needs no trace.
    this.stack = `${this.name}: ${reason}`;
  }
}

/**
 * [SHAPE1]–[SHAPE4] Checks the shape of every Yjs update (sync step 2 or update) that a writable
 * connection sends to any part of a document, `/collab` and `/yjs` alike (both are Hocuspocus
 * connections), before Hocuspocus applies it (server/sync/update-shape.ts): known top-level types only
 * on `<id>` and `<id>/runs` (on `<id>/notes` NOTES11 decides), no subdocument, bounded depth and
 * size. A refused update is thrown out of `beforeSync`, so Hocuspocus neither applies nor
 * broadcasts it and closes the connection with 4403 (4413 for SHAPE3) and the rule in the reason;
 * nothing logged it yet: the persistence logs it on SQLite in the `update` event of the apply, on
 * PostgreSQL in its own later `beforeSync` (server/sync/persistence.ts). A shared type that depends on something the server has not got
 * could later nest deeper than checked, so such an update resets the whole WebSocket (4205), as
 * NotesGuard does, and the provider sends everything again in one sync step 2.
 *
 * Keep it before NotesGuard and the persistence: NotesGuard's copy takes an accepted update at
 * once, and the persistence logs it.
 */
export class ShapeGuard implements Extension {
  extensionName = 'TandemShapeGuard';
  priority = extensionPriority.shapeGuard;

  constructor(private readonly limits: ShapeLimits = defaultShapeLimits) {}

  async beforeSync({ type, payload, document, documentName, connection }: beforeSyncPayload): Promise<void> {
    if ((type !== messageYjsSyncStep2 && type !== messageYjsUpdate) || connection.readOnly) return;
    const target = parseDocName(documentName);
    if (!target) return;
    const report = inspectUpdate(payload, document, target.part === 'notes' ? null : topLevelNames(target.part), this.limits);
    if (report.problem) {
      const { rule, message } = report.problem;
      throw new ShapeRefused(closeCodes[rule] ?? forbiddenCode, `[${rule}] ${message}`);
    }
    if (report.incomplete) {
      connection.webSocket.close(resetCode, 'Reset Connection');
      throw new ShapeRefused(resetCode, 'The update depends on changes the server has not received.');
    }
  }
}
