import { Hocuspocus, type Document } from '@hocuspocus/server';

/**
 * Hocuspocus, unloading only the document it holds now under a name. Hocuspocus 4.7 looks a
 * document up by name when it unloads one: an unload asked for a document already unloaded
 * (the store hooks schedule one on a timer after every store, and a direct connection's
 * disconnect stores and unloads at once) finds the document loaded again since under that
 * name, sees that the old one has no connection, and removes the new one from `documents`,
 * connections and all. The peers on it then hear nothing more: the next writer loads a third
 * copy. An unload of a document that is no longer the one held does nothing here.
 */
export class SafeUnloadHocuspocus extends Hocuspocus {
  override async unloadDocument(document: Document): Promise<void> {
    if (this.documents.get(document.name) !== document) return;
    await super.unloadDocument(document);
  }
}
