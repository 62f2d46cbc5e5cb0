/**
 * The oracle of the editing tests: a plain y-prosemirror editor with Tandem's schema, Y.Doc
 * layout and editing commands (client/editing-plugins.ts) and y-prosemirror's own undo, without
 * Tandem's layers (block ids, annotations, review, presence, app shell). Opens
 * `?ws=<collab url>&doc=<id>&token=<token>`; sets `<html data-synced>` once the server's state
 * is in.
 */
import * as Y from 'yjs';
import { EditorState } from 'prosemirror-state';
import { EditorView } from 'prosemirror-view';
import { initProseMirrorDoc, ySyncPlugin, yUndoPlugin } from 'y-prosemirror';
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import { schema } from '../../../shared/model/schema.ts';
import { docParts } from '../../../shared/model/doc-layout.ts';
import 'prosemirror-view/style/prosemirror.css';
import { editingPlugins } from '../../../client/editing-plugins.ts';

const params = new URLSearchParams(location.search);
const ydoc = new Y.Doc();
const socket = new HocuspocusProviderWebsocket({ url: params.get('ws') ?? '' });
const provider = new HocuspocusProvider({ websocketProvider: socket, name: params.get('doc') ?? '', document: ydoc, token: params.get('token') ?? '' });
provider.attach();

let view: EditorView | null = null;
provider.on('synced', () => {
  if (view) return;
  const yfragment = docParts(ydoc).content;
  const { doc, mapping } = initProseMirrorDoc(yfragment, schema);
  view = new EditorView(document.querySelector('#editor')!, {
    state: EditorState.create({ doc, plugins: [ySyncPlugin(yfragment, { mapping }), yUndoPlugin(), ...editingPlugins()] }),
    attributes: { 'aria-label': 'Document' },
  });
  document.documentElement.dataset.synced = 'true';
});
