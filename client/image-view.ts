import type { Node } from 'prosemirror-model';
import type { NodeView } from 'prosemirror-view';
import { parseAssetUrl, safeImageSrc } from '../shared/model/image-src.ts';

/**
 * Loads an asset of a document (IMG3) with the API's token, as an object URL the page can show:
 * an `<img>` cannot send the token itself. Asset addresses are content-addressed, so each is
 * loaded once per page and kept; the service worker keeps the bytes for offline use (client/sw.ts).
 */
export class AssetLoader {
  private readonly loaded = new Map<string, Promise<string>>();

  constructor(private readonly token: string) {}

  /** An object URL of the asset at `src`; rejects when it cannot be had (offline and not kept, refused). */
  load(src: string): Promise<string> {
    let url = this.loaded.get(src);
    if (!url) {
      url = fetch(src, { headers: { Authorization: `Bearer ${this.token}` } }).then(async (response) => {
        if (!response.ok) throw new Error(`The image answered ${response.status}.`);
        return URL.createObjectURL(await response.blob());
      });
      // A failure is not kept: the next view of the image tries again (the server may be back).
      url.catch(() => this.loaded.delete(src));
      this.loaded.set(src, url);
    }
    return url;
  }
}

/**
 * An image block in the editor: the image, or — when it cannot be shown — a placeholder that
 * says so and names its address, never a silent broken icon (IMG6). An address IMG1 refuses is
 * never loaded; the block shows its alt text.
 */
export class ImageView implements NodeView {
  readonly dom: HTMLElement;

  constructor(
    private node: Node,
    assets: AssetLoader,
  ) {
    this.dom = document.createElement('figure');
    this.dom.className = 'image-block';
    this.dom.contentEditable = 'false';
    if (typeof node.attrs.id === 'string') this.dom.dataset.blockId = node.attrs.id;
    const src = safeImageSrc(node.attrs.src);
    if (src === null) {
      this.showMissing(String(node.attrs.src ?? ''), 'Image not shown: its address is not allowed');
      return;
    }
    const image = document.createElement('img');
    image.alt = String(node.attrs.alt ?? '');
    if (node.attrs.title) image.title = String(node.attrs.title);
    image.addEventListener('error', () => this.showMissing(src, 'Image did not load'), { once: true });
    this.dom.append(image);
    if (parseAssetUrl(src)) {
      assets.load(src).then(
        (url) => (image.src = url),
        () => this.showMissing(src, 'Image not available'),
      );
    } else {
      image.src = src;
    }
  }

  private showMissing(src: string, reason: string): void {
    const placeholder = document.createElement('div');
    placeholder.className = 'image-missing';
    placeholder.setAttribute('role', 'img');
    const alt = String(this.node.attrs.alt ?? '');
    placeholder.setAttribute('aria-label', `${reason}: ${src}${alt ? ` (${alt})` : ''}`);
    const what = document.createElement('strong');
    what.textContent = alt ? `${reason} (${alt})` : reason;
    const address = document.createElement('span');
    address.className = 'image-address';
    address.textContent = src;
    placeholder.append(what, address);
    this.dom.replaceChildren(placeholder);
  }

  update(node: Node): boolean {
    if (node.type !== this.node.type || node.attrs.src !== this.node.attrs.src || node.attrs.alt !== this.node.attrs.alt || node.attrs.title !== this.node.attrs.title) return false;
    this.node = node;
    if (typeof node.attrs.id === 'string') this.dom.dataset.blockId = node.attrs.id;
    return true;
  }

  selectNode(): void {
    this.dom.classList.add('ProseMirror-selectednode');
  }

  deselectNode(): void {
    this.dom.classList.remove('ProseMirror-selectednode');
  }

  /** The view draws its own content: ProseMirror must not read it back as the document's. */
  ignoreMutation(): boolean {
    return true;
  }
}
