import type { afterUnloadDocumentPayload, Extension, onChangePayload } from '@hocuspocus/server';
import { isTransactionOrigin } from '@hocuspocus/server';
import { parseDocName } from '../../shared/model/doc-layout.ts';
import type { AuthContext } from '../extensions/auth.ts';
import { extensionPriority } from '../sync/extension-priorities.ts';
import type { VersionService } from './versions.ts';

interface Pending {
  names: Set<string>;
  timer: NodeJS.Timeout;
}

/**
 * HIST2: keeps people's writing as automatic versions: the first change a person makes to a
 * text starts a timer of `everyMs`; when it fires, or when the document is unloaded first, the
 * text is recorded as an `auto` version by the names of those who wrote meanwhile, unless it is
 * the newest version's. So a version is made at most every `everyMs` of editing, and none for a
 * document nobody changed. Server-side writes (runs, restores) are versioned where they are
 * decided.
 */
export class AutoVersions implements Extension {
  extensionName = 'TandemAutoVersions';
  priority = extensionPriority.autoVersions;

  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly versions: Pick<VersionService, 'recordIfChanged'>,
    private readonly everyMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  async onChange({ documentName, transactionOrigin, context }: onChangePayload<AuthContext>): Promise<void> {
    const target = parseDocName(documentName);
    const name = context?.principal?.name;
    if (target?.part !== 'text' || !name || !isTransactionOrigin(transactionOrigin) || transactionOrigin.source !== 'connection') return;
    const pending = this.pending.get(target.docId);
    if (pending) {
      pending.names.add(name);
      return;
    }
    const timer = setTimeout(() => void this.keep(target.docId), this.everyMs);
    timer.unref();
    this.pending.set(target.docId, { names: new Set([name]), timer });
  }

  async afterUnloadDocument({ documentName }: afterUnloadDocumentPayload): Promise<void> {
    const target = parseDocName(documentName);
    if (target?.part === 'text' && this.pending.has(target.docId)) await this.keep(target.docId);
  }

  /** Records what is pending for `docId` now; resolves once it is recorded (or failed, logged). */
  async keep(docId: string): Promise<void> {
    const pending = this.pending.get(docId);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pending.delete(docId);
    await this.versions.recordIfChanged(docId, 'auto', [...pending.names].join(', ')).catch(this.onError);
  }

  /** Stops every timer; what was pending is not recorded (the server is closing). */
  stop(): void {
    for (const { timer } of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }
}
