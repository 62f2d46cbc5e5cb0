import { ImageRun, Paragraph, TextRun, type IParagraphOptions } from 'docx';
import type { Node } from 'prosemirror-model';
import { imageSize, type ImageType } from '../../shared/model/image-bytes.ts';
import { safeImageSrc } from '../../shared/model/image-src.ts';
import type { OwnImages } from './own-images.ts';

/** The image formats Word embeds; a WebP image is written as its address instead. */
const embedded: Partial<Record<ImageType, 'png' | 'jpg' | 'gif'>> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif' };

/** The widest an embedded image is drawn, in pixels at 96 to the inch (the width of a page's text). */
const maxWidth = 600;

/**
 * CAT5 and IMG3: an image block as a paragraph of a Word document. An image of the document's
 * own (in `images`) whose format Word takes is embedded, at its size or scaled down to the
 * page's width, with its alt text; any other image is a line of text naming it: its alt text
 * and its address (none for an address IMG1 refuses), so the reader knows what was there.
 */
export function imageParagraph(node: Node, images: OwnImages, placement: Omit<IParagraphOptions, 'children'>): Paragraph {
  const src = safeImageSrc(node.attrs.src);
  const alt = typeof node.attrs.alt === 'string' ? node.attrs.alt : '';
  const asset = src === null ? undefined : images[src];
  const format = asset && embedded[asset.type];
  const size = asset && format ? imageSize(asset.bytes, asset.type) : null;
  if (asset && format && size) {
    const scale = Math.min(1, maxWidth / size.width);
    const transformation = { width: Math.round(size.width * scale), height: Math.max(1, Math.round(size.height * scale)) };
    return new Paragraph({
      ...placement,
      children: [new ImageRun({ type: format, data: asset.bytes, transformation, altText: { name: alt || 'Image', description: alt, title: alt } })],
    });
  }
  const label = alt ? `[Image: ${alt}]` : '[Image]';
  return new Paragraph({ ...placement, children: [new TextRun({ text: src === null ? label : `${label} ${src}`, italics: true })] });
}
