import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { looksLikeMarkdown, markdownPasteSlice } from '../../shared/model/markdown-paste.ts';

const types = (text: string) => {
  const slice = markdownPasteSlice(text);
  if (!slice) return null;
  const found: string[] = [];
  slice.content.descendants((node) => {
    found.push(node.isText ? `text${node.marks.length ? `(${node.marks.map((m) => m.type.name).join(',')})` : ''}` : node.type.name);
  });
  return found;
};

describe('[EDIT4] pasted text read as Markdown', () => {
  it('shows signs of Markdown in headings, lists, quotes, fences and inline marks', () => {
    for (const text of [
      '# Title',
      '### Third',
      '- one\n- two',
      '* one',
      '1. first\n2. second',
      '> quoted',
      '```\ncode\n```',
      'Some **bold** text',
      'Some *em* text',
      'Some _em_ text',
      'Call `run()` now',
      'See [the docs](https://example.com)',
      'Was ~~wrong~~ right',
    ]) {
      expect(looksLikeMarkdown(text), text).toBe(true);
    }
  });

  it('shows none in ordinary text', () => {
    for (const text of ['Just a sentence.', 'one\ntwo', 'file_name_here and snake_case', '2 * 3 * 4 = 24', 'C:\\path\\to', 'a - b', '#hashtag', 'price: $5 [approx]', 'e-mail me at a@b.c']) {
      expect(looksLikeMarkdown(text), text).toBe(false);
    }
  });

  it('gives formatting: headings, lists, code blocks, marks and links', () => {
    expect(types('# Title\n\nBody with **bold**.')).toEqual(['heading', 'text', 'paragraph', 'text', 'text(strong)', 'text']);
    expect(types('- one\n- two')).toEqual(['bullet_list', 'list_item', 'paragraph', 'text', 'list_item', 'paragraph', 'text']);
    expect(types('```js\nlet a;\n```')).toEqual(['code_block', 'text']);
    expect(types('See [docs](https://example.com) and `x`')).toEqual(['paragraph', 'text', 'text(link)', 'text', 'text(code)']);
  });

  it('gives nothing when the signs give no formatting, so the text pastes as it is', () => {
    expect(markdownPasteSlice('snake_case_name_here')).toBe(null);
    expect(markdownPasteSlice('Plain words.\nOn two lines.')).toBe(null);
  });

  it('[LINK2] keeps a refused link target as literal text', () => {
    const slice = markdownPasteSlice('**Click** [me](javascript:alert(1))');
    expect(slice).not.toBe(null);
    let links = 0;
    slice!.content.descendants((node) => {
      if (node.marks.some((mark) => mark.type.name === 'link')) links++;
    });
    expect(links).toBe(0);
    expect(slice!.content.textBetween(0, slice!.content.size)).toBe('Click [me](javascript:alert(1))');
  });

  it('gives every block a fresh id and opens one pasted line into the paragraph it lands in', () => {
    const a = markdownPasteSlice('# A\n\n- b\n\ntext **c**')!;
    const b = markdownPasteSlice('# A\n\n- b\n\ntext **c**')!;
    const ids = (slice: typeof a) => Array.from({ length: slice.content.childCount }, (_, i) => slice.content.child(i).attrs.id as string);
    expect(ids(a).every((id) => typeof id === 'string' && id !== '')).toBe(true);
    expect(new Set([...ids(a), ...ids(b)]).size).toBe(6);
    const line = markdownPasteSlice('one **bold** word')!;
    expect([line.openStart, line.openEnd]).toEqual([1, 1]);
  });

  it('never throws, whatever the text', () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (text) => void markdownPasteSlice(text)));
  });
});
