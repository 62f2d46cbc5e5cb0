import { describe, expect, it } from 'vitest';
import { EditorState, TextSelection, type Command } from 'prosemirror-state';
import { schema } from '../../shared/model/schema.ts';
import { applyLink, closeLinkEditor, linkAt, linkKey, linkPlugin, openLinkEditor, removeLink } from '../../client/link-plugin.ts';
import { docToMarkdown } from '../../shared/model/markdown.ts';

const link = (href: string) => schema.marks.link.create({ href });

/** "See the docs page." with "the docs" linked to /docs; the caret at `at`. */
function state(at: number, to = at): EditorState {
  const paragraph = schema.nodes.paragraph.create({ id: 'b1' }, [schema.text('See '), schema.text('the docs', [link('/docs')]), schema.text(' page.')]);
  const doc = schema.nodes.doc.create(null, [paragraph]);
  return EditorState.create({ doc, plugins: [linkPlugin()], selection: TextSelection.create(doc, at, to) });
}

function run(before: EditorState, command: Command): EditorState {
  let next = before;
  expect(command(before, (tr) => (next = before.apply(tr)))).toBe(true);
  return next;
}

const markdown = (s: EditorState) => docToMarkdown(s.doc).trim();

describe('[LINK4] link commands', () => {
  it('find the link around the caret, at its edges too, and none beside it', () => {
    expect(linkAt(state(7))).toEqual({ from: 5, to: 13, href: '/docs' });
    expect(linkAt(state(5))).toEqual({ from: 5, to: 13, href: '/docs' });
    expect(linkAt(state(13))).toEqual({ from: 5, to: 13, href: '/docs' });
    expect(linkAt(state(3))).toBe(null);
    expect(linkAt(state(6, 9))).toEqual({ from: 5, to: 13, href: '/docs' });
    expect(linkAt(state(3, 9))).toBe(null);
  });

  it('open the box for the link under the caret with its address, and edit it in one step', () => {
    const open = run(state(7), openLinkEditor);
    expect(linkKey.getState(open)?.editing).toEqual({ from: 5, to: 13, href: '/docs' });
    const done = run(open, applyLink('https://example.com/'));
    expect(markdown(done)).toBe('See [the docs](https://example.com/) page.');
    expect(linkKey.getState(done)?.editing).toBe(null);
  });

  it('insert the address as linked text at a caret outside any link', () => {
    const done = run(run(state(2), openLinkEditor), applyLink('https://example.com/'));
    expect(markdown(done)).toBe('S<https://example.com/>ee [the docs](/docs) page.');
    expect(done.selection.head).toBe(2 + 'https://example.com/'.length);
  });

  it('refuse a javascript: address, changing nothing', () => {
    const open = run(state(7), openLinkEditor);
    expect(applyLink('javascript:alert(1)')(open, () => expect.unreachable())).toBe(false);
  });

  it('follow the box\'s text through another person\'s typing before it, and close on Escape with its text selected', () => {
    const open = run(state(7), openLinkEditor);
    const typed = open.apply(open.tr.insertText('Oh, ', 1));
    expect(linkKey.getState(typed)?.editing).toEqual({ from: 9, to: 17, href: '/docs' });
    const closed = run(typed, closeLinkEditor(true));
    expect(linkKey.getState(closed)?.editing).toBe(null);
    expect([closed.selection.from, closed.selection.to]).toEqual([9, 17]);
  });

  it('remove the link under the caret, keeping its text', () => {
    expect(markdown(run(state(7), removeLink))).toBe('See the docs page.');
    expect(removeLink(state(2))).toBe(false);
  });
});
