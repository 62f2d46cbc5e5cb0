import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { imageSize, maxImageBytes, sniffImageType } from '../../shared/model/image-bytes.ts';
import { assetUrl, foreignAssetSrcs, isSafeImageSrc, parseAssetUrl, safeImageSrc } from '../../shared/model/image-src.ts';
import { blockToMarkdown, docToMarkdown, markdownToDoc } from '../../shared/model/markdown.ts';
import { markdownImportWarnings, refusedImageAlts } from '../../shared/model/markdown-warnings.ts';
import { schema } from '../../shared/model/schema.ts';
import { htmlAsPng, svgImage, tinyPng } from '../helpers/images.ts';

/*
 * Images (shared/PROTOCOL.md IMG1, IMG2, IMG5): which addresses an image may have, the image
 * block in Markdown both ways and in the DOM, and the type of an upload read from its bytes.
 */

const hash = 'ab'.repeat(32);
const asset = assetUrl('doc1', hash);

const refusedSrcs = [
  'javascript:alert(1)',
  ' javascript:alert(1)',
  'java\tscript:alert(1)',
  'data:image/png;base64,iVBORw0KGgo=',
  'data:image/svg+xml,<svg onload=alert(1)>',
  'blob:https://example.com/0b8e1d6e',
  'http://example.com/i.png',
  'HTTP://example.com/i.png',
  '//example.com/i.png',
  'https:example.com/i.png',
  'https:/example.com/i.png',
  ' https://example.com/i.png',
  'https://example.com/a b.png',
  'https://example.com/a\nb.png',
  'https://example.com/a\\b.png',
  'https://example.com/<x>.png',
  'i.png',
  '/i.png',
  '/api/docs/doc1/assets/not-a-hash',
  `/api/docs/doc1/assets/${hash}/x`,
  `/api/docs/doc1/assets/${hash.toUpperCase()}`,
  `/api/docs/../assets/${hash}`,
  '',
];

describe('image addresses', () => {
  it('[IMG1] keeps absolute https addresses and asset addresses, as written', () => {
    for (const src of ['https://example.com/i.png', 'https://EXAMPLE.com/a/b.png?x=1&y=(2)#f', asset]) expect(safeImageSrc(src)).toBe(src);
  });

  it('[IMG1] refuses every other address, and anything that is no string', () => {
    for (const src of [...refusedSrcs, 42, null, undefined, {}]) expect(safeImageSrc(src), String(src)).toBeNull();
  });

  it('[IMG3] reads the document and the asset an asset address names', () => {
    expect(parseAssetUrl(asset)).toEqual({ docId: 'doc1', assetId: hash });
    expect(parseAssetUrl('https://example.com/i.png')).toBeNull();
    expect(foreignAssetSrcs([asset, assetUrl('doc2', hash), 'https://example.com/i.png'], 'doc1')).toEqual([assetUrl('doc2', hash)]);
  });
});

describe('the image block in Markdown', () => {
  it('[IMG2] reads an image as a block with its address, alt text and title, and writes it back the same', () => {
    const source = `![A red *square*](${asset} "The title")`;
    const doc = markdownToDoc(source);
    expect(doc.childCount).toBe(1);
    expect(doc.firstChild!.type.name).toBe('image');
    expect(doc.firstChild!.attrs).toMatchObject({ src: asset, alt: 'A red square', title: 'The title' });
    expect(docToMarkdown(doc)).toBe(`![A red square](${asset} "The title")`);
    expect(blockToMarkdown(doc.firstChild!)).toBe(`![A red square](${asset} "The title")`);
  });

  it('[IMG2] lifts an image out of its paragraph, the text around it kept before and after it', () => {
    const doc = markdownToDoc('Before ![i](https://example.com/i.png) after\n\n- ![j](https://example.com/j.png)');
    expect(doc.toJSON().content.map((node: { type: string }) => node.type)).toEqual(['paragraph', 'image', 'paragraph', 'bullet_list']);
    expect(docToMarkdown(doc)).toBe('Before\n\n![i](https://example.com/i.png)\n\nafter\n\n* ![j](https://example.com/j.png)');
  });

  it('[IMG2] keeps an image\'s alt text where no block may stand: in a heading, in a link', () => {
    expect(docToMarkdown(markdownToDoc('# Head ![pic](https://example.com/i.png)'))).toBe('# Head pic');
    expect(docToMarkdown(markdownToDoc('[![pic](https://example.com/i.png)](https://example.com)'))).toBe('[pic](https://example.com)');
  });

  it('[IMG1] keeps an image with a refused address as the text of its source, and says so', () => {
    for (const source of ['![cat](http://example.com/c.png)', '![cat](c.png)']) {
      const doc = markdownToDoc(source);
      expect(doc.firstChild!.type.name, source).toBe('paragraph');
      expect(doc.textContent, source).toBe(source);
      expect(markdownImportWarnings(source), source).toEqual(['An image was not kept (“cat”): an image must come from an https address or be uploaded.']);
    }
    expect(markdownImportWarnings('![cat](https://example.com/c.png)')).toEqual([]);
    // A target no link may have either is not read as an image at all (LINK2): its source stays as text.
    expect(markdownToDoc('![cat](javascript:alert(1))').textContent).toBe('![cat](javascript:alert(1))');
  });

  it('[IMG1] finds a refused image only where `![` is written: Markdown without it needs no second reading', () => {
    const piece = fc.constantFrom('![cat](c.png)', '![a](http://e.com/c.png)', '![b][r]', '!', '![', '[', ']', '](', '(', ')', '<', '>', '\\', '`', ' ', '\n\n', 'cat', 'c.png', 'http://e.com/c.png', '&#33;', '&#91;', '[r]', '[r]: c.png', '*', '#');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }).map((pieces) => pieces.join('')), (markdown) => {
        if (!markdown.includes('![')) expect(refusedImageAlts(markdown)).toEqual([]);
        else expect(markdownImportWarnings(markdown)).toEqual(refusedImageAlts(markdown).length ? [expect.any(String)] : []);
      }),
      { numRuns: 3000 },
    );
  });

  it('[IMG1] writes a stored image whose address is refused as its alt text, never as an image', () => {
    const doc = schema.node('doc', null, [schema.node('image', { src: 'javascript:alert(1)', alt: 'Cat' })]);
    expect(docToMarkdown(doc)).toBe('Cat');
  });

  it('[IMG2] round-trips any image of a safe address, alt text and title', () => {
    const alt = fc.string({ maxLength: 20 }).map((text) => text.replace(/\s+/g, ' ').trim());
    const title = fc.string({ maxLength: 20 }).map((text) => text.replace(/\s+/g, ' ').trim());
    // Characters markdown-it keeps as they are in a destination (it percent-encodes others).
    const path = fc.stringMatching(/^[a-zA-Z0-9/()._~-]{0,20}$/);
    fc.assert(
      fc.property(alt, title, path, (altText, titleText, rest) => {
        const src = `https://example.com/${rest}`;
        const doc = schema.node('doc', null, [schema.node('image', { src, alt: altText, title: titleText })]);
        const again = markdownToDoc(docToMarkdown(doc));
        expect(again.childCount).toBe(1);
        expect(again.firstChild!.attrs).toMatchObject({ src, alt: altText, title: titleText });
      }),
      // An alt text that reads as emphasis once the serializer leaves an underscore unescaped.
      { examples: [['__0__', '', '']] },
    );
  });
});

describe('the image block in the DOM', () => {
  const spec = schema.nodes.image.spec;
  const element = (attrs: Record<string, string>) => ({ getAttribute: (name: string) => attrs[name] ?? null }) as unknown as HTMLElement;
  const parse = (attrs: Record<string, string>) => (spec.parseDOM![0].getAttrs as (dom: HTMLElement) => unknown)(element(attrs));

  it('[IMG1] takes a pasted image only with an address it keeps', () => {
    expect(parse({ src: 'https://example.com/i.png', alt: 'A' })).toEqual({ id: null, src: 'https://example.com/i.png', alt: 'A', title: '' });
    for (const src of refusedSrcs) expect(parse({ src }), src).toBe(false);
  });

  it('[IMG1] draws a stored image with a refused address as its alt text', () => {
    const render = (src: unknown) => spec.toDOM!(schema.nodes.image.create({ src, alt: 'Cat', id: 'b1' }));
    expect(render('https://example.com/i.png')).toEqual(['img', { 'data-block-id': 'b1', src: 'https://example.com/i.png', alt: 'Cat' }]);
    for (const src of ['javascript:alert(1)', 'data:image/png;base64,x', 42]) expect(render(src)).toEqual(['p', { 'data-block-id': 'b1' }, 'Cat']);
  });
});

describe('the type of an upload', () => {
  const prefixed = (magic: number[], rest: Uint8Array) => Uint8Array.from([...magic, ...rest]);

  it('[IMG5] reads PNG, JPEG, GIF and WebP from their magic numbers', () => {
    expect(sniffImageType(tinyPng)).toBe('image/png');
    expect(sniffImageType(prefixed([0xff, 0xd8, 0xff, 0xe0], new Uint8Array(4)))).toBe('image/jpeg');
    expect(sniffImageType(new TextEncoder().encode('GIF89a\x01\x00\x01\x00'))).toBe('image/gif');
    expect(sniffImageType(new TextEncoder().encode('GIF87a\x01\x00\x01\x00'))).toBe('image/gif');
    expect(sniffImageType(new TextEncoder().encode('RIFF\x00\x00\x00\x00WEBPVP8 '))).toBe('image/webp');
  });

  it('[IMG5] refuses HTML sent as a PNG, SVG, an empty body and a truncated magic number', () => {
    for (const bytes of [htmlAsPng, svgImage, new Uint8Array(0), tinyPng.subarray(0, 7), new TextEncoder().encode('RIFF\x00\x00\x00\x00WAVE')]) {
      expect(sniffImageType(bytes)).toBeNull();
    }
  });

  it('[IMG5] never takes random bytes for an image unless they start with its magic number', () => {
    const magics: Record<string, (bytes: Uint8Array) => boolean> = {
      'image/png': (b) => [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((x, i) => b[i] === x),
      'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
      'image/gif': (b) => ['GIF87a', 'GIF89a'].includes(String.fromCharCode(...b.subarray(0, 6))),
      'image/webp': (b) => String.fromCharCode(...b.subarray(0, 4)) === 'RIFF' && String.fromCharCode(...b.subarray(8, 12)) === 'WEBP',
    };
    const starts = fc.constantFrom([], [0x89, 0x50, 0x4e, 0x47], [0xff, 0xd8], [0xff, 0xd8, 0xff], [0x47, 0x49, 0x46, 0x38], [0x52, 0x49, 0x46, 0x46], [0x3c, 0x73, 0x76, 0x67]);
    fc.assert(
      fc.property(starts, fc.uint8Array({ maxLength: 32 }), (start, rest) => {
        const bytes = Uint8Array.from([...start, ...rest]);
        const type = sniffImageType(bytes);
        if (type === null) expect(Object.values(magics).some((has) => has(bytes))).toBe(false);
        else expect(magics[type](bytes)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads the size a PNG, GIF and JPEG header states, for a Word export', () => {
    expect(imageSize(tinyPng, 'image/png')).toEqual({ width: 4, height: 3 });
    expect(imageSize(new TextEncoder().encode('GIF89a\x05\x00\x02\x00'), 'image/gif')).toEqual({ width: 5, height: 2 });
    const jpeg = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x07, 0x00, 0x09, 0x03, 0, 0, 0, 0]);
    expect(imageSize(jpeg, 'image/jpeg')).toEqual({ width: 9, height: 7 });
    expect(imageSize(tinyPng.subarray(0, 20), 'image/png')).toBeNull();
    expect(maxImageBytes).toBe(10 * 1024 * 1024);
  });

  it('is what the address check says of its own helper', () => {
    expect(isSafeImageSrc(asset)).toBe(true);
  });
});
