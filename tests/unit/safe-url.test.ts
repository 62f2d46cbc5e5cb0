import { describe, expect, it } from 'vitest';
import type { Mark } from 'prosemirror-model';
import { isSafeLinkHref, safeLinkHref } from '../../shared/model/safe-url.ts';
import { schema } from '../../shared/model/schema.ts';
import { docToMarkdown, markdownToDoc } from '../../shared/model/markdown.ts';

/**
 * Targets that run script or load a document of their own, written the ways that slip past a
 * check on the start of the string. Character references appear decoded, as the HTML parser
 * and markdown-it hand them over (`&#x6A;avascript:` is `javascript:` by then).
 */
const refused = [
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  'JAVASCRIPT:alert(1)',
  ' javascript:alert(1)',
  'javascript:alert(1) ',
  'java\tscript:alert(1)',
  'java\nscript:alert(1)',
  'java\rscript:alert(1)',
  'j\na\tv\ra\nscript:alert(1)',
  'javascript\t:alert(1)',
  '\tjavascript:alert(1)',
  '\x00javascript:alert(1)',
  '\x01javascript:alert(1)',
  '\x08javascript:alert(1)',
  '\x1fjavascript:alert(1)',
  '\x01\x02 \x03javascript:alert(1)',
  'javascript://%0Aalert(1)',
  'javascript:/*-->*/alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  'DATA:text/html,x',
  'data:image/svg+xml,<svg onload=alert(1)>',
  'vbscript:msgbox(1)',
  'VbScRiPt:msgbox(1)',
  'file:///etc/passwd',
  'blob:https://example.com/0b8e1d6e-4c5d-4a8b-9a5c-2f9d5c6b7e8f',
  'filesystem:https://example.com/temporary/x',
  'ftp://example.com/x',
  'tel:+15551234',
  'livescript:alert(1)',
  'http://[::1',
  'https://exa mple.com',
];

const kept = [
  'https://example.com',
  'HTTPS://EXAMPLE.COM/Path',
  'http://example.com/a?b=1&c=2#d',
  'https://exa\nmple.com/',
  'mailto:someone@example.com',
  '/d/abc',
  'relative/path',
  '../up',
  '#top',
  '?q=1',
  '//example.com/protocol-relative',
  '',
  // Still holding a character reference, the string is a relative path: `&` cannot be in a scheme.
  '&#x6A;avascript:alert(1)',
];

describe('link targets', () => {
  it.each(refused.map((href) => [JSON.stringify(href), href]))('[LINK1] refuses %s', (_name, href) => {
    expect(safeLinkHref(href)).toBeNull();
    expect(isSafeLinkHref(href)).toBe(false);
  });

  it.each(kept.map((href) => [JSON.stringify(href), href]))('[LINK1] keeps %s as it is', (_name, href) => {
    expect(safeLinkHref(href)).toBe(href);
  });

  it('[LINK1] refuses a target that is not a string', () => {
    for (const href of [undefined, null, 42, {}, ['https://example.com']]) expect(safeLinkHref(href)).toBeNull();
  });

  it('[LINK1] keeps only targets the browser would open as http, https or mailto', () => {
    for (const href of kept) {
      expect(['http:', 'https:', 'mailto:']).toContain(new URL(href, 'http://127.0.0.1:8787/d/x').protocol);
    }
  });
});

const linkSpec = schema.marks.link.spec;
const element = (attrs: Record<string, string>) => ({ getAttribute: (name: string) => attrs[name] ?? null }) as unknown as HTMLElement;
const parseLink = (attrs: Record<string, string>) => (linkSpec.parseDOM![0].getAttrs as (dom: HTMLElement) => unknown)(element(attrs));
const renderLink = (href: unknown) => linkSpec.toDOM!(schema.marks.link.create({ href, title: 'T' }), true);

describe('the link mark', () => {
  it('[LINK2] does not match pasted HTML whose href is refused', () => {
    for (const href of refused) expect(parseLink({ href })).toBe(false);
  });

  it('[LINK2] keeps a pasted link whose href passes, with its title', () => {
    expect(parseLink({ href: 'https://example.com', title: 'Example' })).toEqual({ href: 'https://example.com', title: 'Example' });
  });

  it('[LINK3] renders a stored mark with a refused href as an anchor without href', () => {
    for (const href of [...refused, 42, null]) expect(renderLink(href)).toEqual(['a', { title: 'T' }, 0]);
  });

  it('[LINK3] renders a stored mark with a kept href as a link', () => {
    expect(renderLink('/d/abc')).toEqual(['a', { href: '/d/abc', title: 'T' }, 0]);
  });
});

function links(markdown: string): string[] {
  const hrefs: string[] = [];
  markdownToDoc(markdown).descendants((node) => {
    node.marks.forEach((mark: Mark) => {
      if (mark.type === schema.marks.link) hrefs.push(mark.attrs.href);
    });
  });
  return hrefs;
}

describe('links in Markdown', () => {
  it('[LINK2] leaves a link with a refused target as its literal text', () => {
    const doc = markdownToDoc('Click [here](javascript:alert(1)) now.');
    expect(links('Click [here](javascript:alert(1)) now.')).toEqual([]);
    expect(doc.textContent).toBe('Click [here](javascript:alert(1)) now.');
  });

  it('[LINK2] refuses targets hidden behind character references, case, autolinks and data', () => {
    for (const markdown of [
      '[x](&#x6A;avascript:alert(1))',
      '[x](&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;:alert(1))',
      '[x](javascript&colon;alert(1))',
      '[x](JaVaScRiPt:alert(1))',
      '[x](<javascript:alert(1)>)',
      '<javascript:alert(1)>',
      '[x](data:text/html;base64,PHNjcmlwdD4=)',
      '[x](vbscript:msgbox(1))',
      '[x][r]\n\n[r]: javascript:alert(1)',
    ]) {
      expect(links(markdown), markdown).toEqual([]);
    }
  });

  it('[LINK2] keeps http, https, mailto and relative links', () => {
    expect(links('[a](https://example.com) [b](http://example.com) [c](mailto:a@example.com) [d](/d/x) <https://example.org>')).toEqual([
      'https://example.com',
      'http://example.com',
      'mailto:a@example.com',
      '/d/x',
      'https://example.org',
    ]);
  });

  it('[LINK3] exports a stored link mark with a refused target as its text alone', () => {
    const mark = schema.marks.link.create({ href: 'java\nscript:alert(1)' });
    const doc = schema.nodes.doc.create(null, schema.nodes.paragraph.create(null, [schema.text('Go '), schema.text('here', [mark]), schema.text('.')]));
    expect(docToMarkdown(doc)).toBe('Go here.');
  });

  it('[LINK3] exports a stored link mark whose title is no string without the title', () => {
    const mark = schema.marks.link.create({ href: '/d/x', title: 42 });
    const doc = schema.nodes.doc.create(null, schema.nodes.paragraph.create(null, [schema.text('here', [mark])]));
    expect(docToMarkdown(doc)).toBe('[here](/d/x)');
  });

  it('[LINK3] exports a stored link mark with a kept target as a Markdown link', () => {
    const mark = schema.marks.link.create({ href: 'https://example.com' });
    const doc = schema.nodes.doc.create(null, schema.nodes.paragraph.create(null, [schema.text('here', [mark])]));
    expect(docToMarkdown(doc)).toBe('[here](https://example.com)');
  });
});
