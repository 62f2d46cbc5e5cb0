/**
 * The browser benchmark's baseline: the least an editor on Tandem's stack can be. The same
 * schema, Y.Doc layout, y-prosemirror binding, Hocuspocus provider and y-indexeddb cache as
 * Tandem's client, and nothing else (no app shell, no service worker, no presence, no
 * annotations). Opens `?ws=<collab url>&doc=<id>&token=<token>`; sets
 * `<html data-saved-locally>` once the server's state is in IndexedDB.
 */
import * as Y from 'yjs';
import { EditorState } from 'prosemirror-state';
import { EditorView } from 'prosemirror-view';
import { ySyncPlugin } from 'y-prosemirror';
import { IndexeddbPersistence } from 'y-indexeddb';
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import { schema } from '../../shared/model/schema.ts';
import { docParts } from '../../shared/model/doc-layout.ts';

const params = new URLSearchParams(location.search);
const docId = params.get('doc') ?? '';
const ydoc = new Y.Doc();
const local = new IndexeddbPersistence(`minimal:${docId}`, ydoc);
const socket = new HocuspocusProviderWebsocket({ url: params.get('ws') ?? '', maxDelay: 5000 });
const provider = new HocuspocusProvider({ websocketProvider: socket, name: docId, document: ydoc, token: params.get('token') ?? '' });
provider.attach();

new EditorView(document.querySelector('#editor')!, {
  state: EditorState.create({ schema, plugins: [ySyncPlugin(docParts(ydoc).content)] }),
  attributes: { 'aria-label': 'Document' },
});

provider.on('synced', async () => {
  await local.whenSynced;
  // A read transaction opened after y-indexeddb's write completes after it.
  const tx = local.db!.transaction(['updates'], 'readonly');
  tx.oncomplete = () => {
    document.documentElement.dataset.savedLocally = 'true';
  };
});
