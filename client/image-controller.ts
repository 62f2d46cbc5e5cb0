import { html, nothing, type ReactiveController, type ReactiveControllerHost } from 'lit';
import { refusedImageMessage, safeImageSrc } from '../shared/model/image-src.ts';
import type { DocConnection } from './doc-connection.ts';
import type { EditorController } from './editor-controller.ts';
import { clearImageError, closeImagePicker, imagesKey, insertImage, uploadInto } from './image-plugin.ts';
import './tandem-image-picker.ts';

interface ImageHost extends ReactiveControllerHost {
  connection: DocConnection | null;
}

/**
 * The parts of an editor that insert images (IMG6), rendered by the host above the text:
 * the box `Insert image` opens, and the message of an upload that failed. A file chosen in the
 * box is uploaded as a pasted one is (client/image-plugin.ts); an address typed in it is
 * inserted when IMG1 keeps it.
 */
export class ImageController implements ReactiveController {
  private addressError = '';

  constructor(
    private readonly host: ImageHost,
    private readonly editor: EditorController,
  ) {
    host.addController(this);
  }

  hostConnected(): void {}

  render() {
    const state = this.editor.state;
    const images = state ? imagesKey.getState(state) : undefined;
    if (!images) return nothing;
    return html`${images.picking
      ? html`<tandem-image-picker
          .error=${this.addressError}
          @image-file=${(event: CustomEvent<File>) => this.insertFile(event.detail)}
          @image-address=${(event: CustomEvent<string>) => this.insertAddress(event.detail)}
          @image-input=${() => this.setAddressError('')}
          @image-cancel=${() => this.close()}
        ></tandem-image-picker>`
      : nothing}
    ${images.uploads.length > 0 ? html`<p class="image-progress" role="status">Uploading ${images.uploads.length === 1 ? 'an image' : `${images.uploads.length} images`}…</p>` : nothing}
    ${images.error
      ? html`<p class="image-error" role="alert">
          ${images.error} <button type="button" @click=${() => this.editor.apply(clearImageError, { focus: true })}>Dismiss</button>
        </p>`
      : nothing}`;
  }

  private insertFile(file: File) {
    const view = this.editor.view;
    const connection = this.host.connection;
    this.close();
    if (!view || !connection) return;
    void uploadInto(view, { docId: connection.docId, token: connection.token }, file, view.state.selection.from);
  }

  private insertAddress(typed: string) {
    const src = safeImageSrc(typed.trim());
    if (src === null) {
      this.setAddressError(refusedImageMessage);
      return;
    }
    this.close();
    this.editor.run((state, dispatch) => {
      dispatch?.(insertImage(state, state.selection.from, { src, alt: '' }).scrollIntoView());
      return true;
    });
  }

  private close() {
    this.setAddressError('');
    this.editor.apply(closeImagePicker, { focus: true });
  }

  private setAddressError(message: string) {
    this.addressError = message;
    this.host.requestUpdate();
  }
}
