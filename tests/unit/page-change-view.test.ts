import { describe, expect, it } from 'vitest';
import { elementName, pageChangeTexts } from '../../shared/page/page-change-view.ts';
import { JSDOM } from 'jsdom';

const { document } = new JSDOM('<!doctype html><body></body>').window;

function element(html: string): Element {
  const template = document.createElement('template');
  template.innerHTML = html;
  return template.content.firstElementChild!;
}

describe('a page change as the review shows it', () => {
  it('[PAGE15] is the element’s text when the text changed, markup and ids left out', () => {
    expect(pageChangeTexts(document, '<h1 data-tandem-id="e1">Hello  <b data-tandem-id="e2">world</b></h1>', '<h1 data-tandem-id="e1">Hello there</h1>')).toEqual({
      before: 'Hello world',
      after: 'Hello there',
    });
  });

  it('[PAGE15] is the start tag without ids when only an attribute changed', () => {
    expect(pageChangeTexts(document, '<a data-tandem-id="e1" href="https://a.example/" title="x>y">Docs</a>', '<a data-tandem-id="e1" href="https://b.example/" title="x>y">Docs</a>')).toEqual({
      before: '<a href="https://a.example/" title="x>y">',
      after: '<a href="https://b.example/" title="x>y">',
    });
  });

  it('[PAGE15] is the markup without ids when only the inner markup changed', () => {
    expect(pageChangeTexts(document, '<p data-tandem-id="e1">Read <i data-tandem-id="e2">this</i></p>', '<p data-tandem-id="e1">Read <b>this</b></p>')).toEqual({
      before: '<p>Read <i>this</i></p>',
      after: '<p>Read <b>this</b></p>',
    });
  });

  it('[PAGE15] names an element without text by its kind, with its alt text or title', () => {
    expect(elementName(element('<img src="data:," alt=" A  cat ">'))).toBe('image “A cat”');
    expect(elementName(element('<hr>'))).toBe('divider');
    expect(elementName(element('<div title="Spacer"></div>'))).toBe('div element “Spacer”');
  });
});
