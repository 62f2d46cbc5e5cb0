import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isSafeLinkHref, linkAddressFromInput, pastedUrl, refusedLinkMessage } from '../../shared/model/safe-url.ts';

describe('[LINK4] an address typed into the link box', () => {
  it('keeps http, https, mailto and relative addresses as typed, trimmed', () => {
    for (const href of ['https://example.com/a?b=c#d', 'http://example.com', 'mailto:a@example.com', '/d/abc', '#part']) {
      expect(linkAddressFromInput(` ${href} `)).toEqual({ ok: true, href });
    }
  });

  it('takes a bare host name as its https address', () => {
    expect(linkAddressFromInput('example.com')).toEqual({ ok: true, href: 'https://example.com' });
    expect(linkAddressFromInput('docs.example.org/guide?x=1')).toEqual({ ok: true, href: 'https://docs.example.org/guide?x=1' });
    expect(linkAddressFromInput('example.com:8080/x')).toEqual({ ok: true, href: 'https://example.com:8080/x' });
  });

  it('refuses script and data addresses with a sentence, however they are written', () => {
    for (const input of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'java\nscript:alert(1)', '\x01javascript:x', 'data:text/html,x', 'vbscript:x', 'file:///etc/passwd']) {
      expect(linkAddressFromInput(input)).toEqual({ ok: false, message: refusedLinkMessage });
    }
    expect(linkAddressFromInput('   ')).toEqual({ ok: false, message: 'Type an address for the link.' });
  });

  it('never gives an address Tandem would not keep', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl(), fc.constantFrom('javascript:', 'data:', 'vbscript:').chain((s) => fc.string().map((t) => s + t))), (input) => {
        const address = linkAddressFromInput(input);
        if (address.ok) expect(isSafeLinkHref(address.href)).toBe(true);
      }),
    );
  });
});

describe('[LINK5] whether pasted text is a URL', () => {
  it('is one absolute http, https or mailto address alone', () => {
    expect(pastedUrl('https://example.com/a?b=c')).toBe('https://example.com/a?b=c');
    expect(pastedUrl('  http://example.com\n')).toBe('http://example.com');
    expect(pastedUrl('mailto:someone@example.com')).toBe('mailto:someone@example.com');
  });

  it('is not a word, a relative reference, text around a URL or another scheme', () => {
    for (const text of ['manual', '/d/abc', 'example.com', 'see https://example.com', 'https://a.com https://b.com', 'javascript:alert(1)', 'JAVASCRIPT:alert(1)', 'data:text/html,x', 'ftp://example.com', 'https://', 'mailto:', 'http:/x', '']) {
      expect(pastedUrl(text)).toBe(null);
    }
  });

  it('is a URL Tandem keeps whenever it is one', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl()), (text) => {
        const url = pastedUrl(text);
        if (url !== null) expect(isSafeLinkHref(url)).toBe(true);
      }),
    );
    fc.assert(fc.property(fc.webUrl({ validSchemes: ['http', 'https'] }), (url) => pastedUrl(url) === url));
  });
});
