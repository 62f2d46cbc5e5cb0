/**
 * The browser benchmark's peer: a collaborative Tiptap editor with the features a writer gets in
 * Tandem's text (StarterKit with its links, Collaboration, the collaboration caret, tables,
 * images), on the same Hocuspocus provider and y-indexeddb cache. Opens
 * `?ws=<collab url>&doc=<id>&token=<token>` and edits the same `content` fragment as Tandem's
 * client; sets `<html data-saved-locally>` once the server's state is in IndexedDB.
 */
import * as Y from 'yjs';
import { Editor } from '@tiptap/core';
import StarterKit from '@tiptap/starter-kit';
import Collaboration from '@tiptap/extension-collaboration';
import CollaborationCaret from '@tiptap/extension-collaboration-caret';
import { TableKit } from '@tiptap/extension-table';
import Image from '@tiptap/extension-image';
import { IndexeddbPersistence } from 'y-indexeddb';
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';

const params = new URLSearchParams(location.search);
const docId = params.get('doc') ?? '';
const ydoc = new Y.Doc();
const local = new IndexeddbPersistence(`tiptap:${docId}`, ydoc);
const socket = new HocuspocusProviderWebsocket({ url: params.get('ws') ?? '', maxDelay: 5000 });
const provider = new HocuspocusProvider({ websocketProvider: socket, name: docId, document: ydoc, token: params.get('token') ?? '' });
provider.attach();

new Editor({
  element: document.querySelector<HTMLElement>('#editor')!,
  editorProps: { attributes: { 'aria-label': 'Document' } },
  extensions: [
    StarterKit.configure({ undoRedo: false }),
    Collaboration.configure({ document: ydoc, field: 'content' }),
    CollaborationCaret.configure({ provider, user: { name: 'Bench', color: '#3366cc' } }),
    TableKit,
    Image,
  ],
});

provider.on('synced', async () => {
  await local.whenSynced;
  const tx = local.db!.transaction(['updates'], 'readonly');
  tx.oncomplete = () => {
    document.documentElement.dataset.savedLocally = 'true';
  };
});
