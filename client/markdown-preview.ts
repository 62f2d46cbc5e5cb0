import { DOMSerializer } from 'prosemirror-model';
import { markdownToDoc } from '../shared/model/markdown.ts';
import { schema } from '../shared/model/schema.ts';

/**
 * Draws Markdown as read-only HTML with the schema's own `toDOM`, so links and addresses pass
 * shared/model/safe-url.ts as they do in the editor. An image shows as its description: an
 * asset needs the API's token (client/image-view.ts), which a plain `<img>` cannot send.
 */
const serializer = new DOMSerializer(
  {
    ...DOMSerializer.nodesFromSchema(schema),
    image: (node) => ['p', { class: 'image-missing' }, `Image: ${String(node.attrs.alt || 'no description')}`],
  },
  DOMSerializer.marksFromSchema(schema),
);

/** The blocks of `markdown`, drawn into a fresh `<div>` of `document`. */
export function markdownPreview(markdown: string, document: Document): HTMLElement {
  const frame = document.createElement('div');
  serializer.serializeFragment(markdownToDoc(markdown).content, { document }, frame);
  return frame;
}
