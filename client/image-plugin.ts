import { Plugin, PluginKey, type Command, type EditorState, type Transaction } from 'prosemirror-state';
import { Decoration, DecorationSet, type EditorView } from 'prosemirror-view';
import { schema } from '../shared/model/schema.ts';
import { ApiError, uploadImage } from './api.ts';
import { AssetLoader, ImageView } from './image-view.ts';

/**
 * Images in the editor (IMG6): the image blocks' node view, and uploads. A file pasted, dropped
 * or picked is uploaded (client/api.ts `uploadImage`) while a placeholder stands where it will
 * go, mapped through every change meanwhile; the image block then takes the placeholder's
 * place, or the placeholder goes and `error` says why the file was refused.
 */

interface Upload {
  id: number;
  pos: number;
}

export interface ImagesState {
  /** Whether the box of `Insert image` is open. */
  picking: boolean;
  uploads: readonly Upload[];
  /** Why the last upload failed, for a person; null when nothing failed since. */
  error: string | null;
}

type ImagesMeta = { add: Upload } | { end: number; error?: string } | { clearError: true } | { picking: boolean };

export const imagesKey = new PluginKey<ImagesState>('images');

/** The document and token that uploads and asset loads go with. */
export interface ImageTarget {
  docId: string;
  token: string;
}

export function imagesPlugin(target: ImageTarget): Plugin<ImagesState> {
  const assets = new AssetLoader(target.token);
  return new Plugin<ImagesState>({
    key: imagesKey,
    state: {
      init: () => ({ picking: false, uploads: [], error: null }),
      apply(tr, value) {
        const meta = tr.getMeta(imagesKey) as ImagesMeta | undefined;
        let uploads = tr.docChanged ? value.uploads.map((upload) => ({ ...upload, pos: tr.mapping.map(upload.pos) })) : value.uploads;
        let error = value.error;
        if (meta && 'add' in meta) {
          uploads = [...uploads, meta.add];
          error = null;
        }
        if (meta && 'end' in meta) {
          uploads = uploads.filter((upload) => upload.id !== meta.end);
          if (meta.error) error = meta.error;
        }
        if (meta && 'clearError' in meta) error = null;
        const picking = meta && 'picking' in meta ? meta.picking : value.picking;
        if (picking) error = null;
        return uploads === value.uploads && error === value.error && picking === value.picking ? value : { picking, uploads, error };
      },
    },
    props: {
      nodeViews: { image: (node) => new ImageView(node, assets) },
      decorations(state) {
        const uploads = imagesKey.getState(state)?.uploads ?? [];
        if (uploads.length === 0) return null;
        return DecorationSet.create(
          state.doc,
          uploads.map((upload) => Decoration.widget(upload.pos, uploadingPlaceholder, { key: `upload-${upload.id}`, side: -1 })),
        );
      },
      handlePaste(view, event) {
        const files = imageFiles(event.clipboardData);
        if (files.length === 0) return false;
        for (const file of files) void uploadInto(view, target, file, view.state.selection.from);
        return true;
      },
      handleDrop(view, event) {
        const files = imageFiles(event.dataTransfer);
        if (files.length === 0) return false;
        event.preventDefault();
        const pos = view.posAtCoords({ left: event.clientX, top: event.clientY })?.pos ?? view.state.selection.from;
        for (const file of files) void uploadInto(view, target, file, pos);
        return true;
      },
    },
  });
}

let nextUpload = 1;

/** Uploads `file` and puts its image at `pos` (mapped through the changes made meanwhile). */
export async function uploadInto(view: EditorView, target: ImageTarget, file: File, pos: number): Promise<void> {
  const id = nextUpload++;
  view.dispatch(view.state.tr.setMeta(imagesKey, { add: { id, pos } } satisfies ImagesMeta));
  let url: string;
  try {
    url = await uploadImage(target.token, target.docId, file);
  } catch (error) {
    const message = error instanceof ApiError ? error.message : 'The image could not be uploaded.';
    if (!view.isDestroyed) view.dispatch(view.state.tr.setMeta(imagesKey, { end: id, error: `${file.name || 'The image'}: ${message}` } satisfies ImagesMeta));
    return;
  }
  if (view.isDestroyed) return;
  const upload = imagesKey.getState(view.state)?.uploads.find((each) => each.id === id);
  const at = upload?.pos ?? view.state.selection.from;
  const tr = insertImage(view.state, at, { src: url, alt: altOf(file) }).setMeta(imagesKey, { end: id } satisfies ImagesMeta);
  view.dispatch(tr.scrollIntoView());
}

/**
 * A transaction putting an image block at `pos`: before the text block there when `pos` is at
 * its start, else after it. The text block is not split: both halves of a split would carry its
 * id, and agents address blocks by id.
 */
export function insertImage(state: EditorState, pos: number, attrs: { src: string; alt: string }): Transaction {
  const node = schema.nodes.image.create(attrs);
  const $pos = state.doc.resolve(Math.min(pos, state.doc.content.size));
  if (!$pos.parent.isTextblock || $pos.depth === 0) return state.tr.replaceRangeWith(pos, pos, node);
  return state.tr.insert($pos.parentOffset === 0 ? $pos.before() : $pos.after(), node);
}

/** IMG6: opens the box of `Insert image` where an image block may go (the toolbar button, Ctrl+Alt+G). */
export const openImagePicker: Command = (state, dispatch) => {
  if (!canInsertImage(state)) return false;
  dispatch?.(state.tr.setMeta(imagesKey, { picking: true } satisfies ImagesMeta));
  return true;
};

export const closeImagePicker: Command = (state, dispatch) => {
  if (!imagesKey.getState(state)?.picking) return false;
  dispatch?.(state.tr.setMeta(imagesKey, { picking: false } satisfies ImagesMeta));
  return true;
};

/** Whether an image block may go at the selection. */
function canInsertImage(state: EditorState): boolean {
  const { $from } = state.selection;
  for (let depth = $from.depth; depth >= 0; depth--) {
    const index = $from.index(depth);
    if ($from.node(depth).canReplaceWith(index, index, schema.nodes.image)) return true;
  }
  return false;
}

/** Clears the message of a failed upload. */
export const clearImageError: Command = (state, dispatch) => {
  if (imagesKey.getState(state)?.error == null) return false;
  dispatch?.(state.tr.setMeta(imagesKey, { clearError: true } satisfies ImagesMeta));
  return true;
};

function imageFiles(data: DataTransfer | null): File[] {
  return data ? [...data.files].filter((file) => file.type.startsWith('image/') || file.type === '') : [];
}

/** A file's name without its extension: the alt text a person can then change. */
function altOf(file: File): string {
  return file.name.replace(/\.[^.]*$/, '');
}

function uploadingPlaceholder(): HTMLElement {
  const placeholder = document.createElement('div');
  placeholder.className = 'image-uploading';
  placeholder.setAttribute('role', 'status');
  placeholder.textContent = 'Uploading image…';
  return placeholder;
}
