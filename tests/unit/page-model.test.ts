import { describe, expect, it } from 'vitest';
import { elementRangeInSource, normalizePage, readElements } from '../../shared/page/page-model.ts';
import { applyPageOps, candidateOf, type PageApplierRun } from '../../shared/page/page-applier.ts';
import { pageOpKinds } from '../../shared/page/page-ops.ts';
import { serverPageTools } from '../../server/pages/page-tools.ts';

const tools = serverPageTools();

function counter(prefix: string): () => string {
  let n = 0;
  return () => `${prefix}${n++}`;
}

const landing = '<h1>Welcome to the very long headline</h1><p>Read <a href="https://example.com/x">the docs</a>.</p><ul><li>one</li></ul>';

function page() {
  const source = normalizePage(tools, landing, counter('e'));
  const elements = readElements(tools, source);
  const byTag = (tag: string) => elements.find((element) => element.tag === tag)!;
  const run: PageApplierRun = {
    fence: new Set(elements.map((element) => element.id)),
    instructions: new Set(['i1', 'i2']),
    allowedOps: new Set(pageOpKinds),
    makeId: counter('n'),
  };
  return { source, elements, byTag, run };
}

describe('page model', () => {
  it('[PAGE1] gives every element a unique data-tandem-id and keeps well-formed ids it already has', () => {
    const source = normalizePage(tools, '<p data-tandem-id="keep">a<b>b</b></p><p data-tandem-id="keep">c</p><i data-tandem-id="bad id">d</i>', counter('e'));
    expect(source).toBe(
      '<p data-tandem-id="keep">a<b data-tandem-id="e0">b</b></p><p data-tandem-id="e1">c</p><i data-tandem-id="e2">d</i>',
    );
  });

  it('[PAGE2] removes scripts, event handlers, javascript: and data: links, frames and srcdoc', () => {
    const source = normalizePage(
      tools,
      '<h1 onclick="go()">Hi<script>go()</script></h1><a href="javascript:go()">j</a><a href="data:text/html,x">d</a>' +
        '<iframe srcdoc="<script>go()</script>"></iframe><svg onload="go()"><script>go()</script></svg><img src="x" onerror="go()">',
      counter('e'),
    );
    expect(source).not.toMatch(/script|onclick|onload|onerror|javascript:|data:text|iframe|srcdoc/i);
    expect(source).toContain('<h1 data-tandem-id="e0">Hi</h1>');
  });

  it('[PAGE2] keeps text that looks like markup as text beside a comment it drops, at the top level too', () => {
    // A top level without elements, whose text holds `<t`: DOMPurify would remove the container
    // itself, which it refuses to do in place (it threw).
    expect(normalizePage(tools, 'x<</p>t<!-- c -->', counter('e'))).toBe('x&lt;t');
    expect(normalizePage(tools, '<</p>text<!-- c -->', counter('e'))).toBe('&lt;text');
    expect(normalizePage(tools, '<p>x<</p>t<!---->', counter('e'))).toBe('<p data-tandem-id="e0">x&lt;</p>t');
  });

  it('[PAGE1] writes misnested headings as the tree that reads back as itself', () => {
    // Parsed, `<h1><a><h1>` nests a heading in a heading, which markup cannot say: read back, the
    // second heading closes the first. The source is that second reading.
    const source = normalizePage(tools, '<h1><a href="javascript:alert(1)"><h1><a href="https://x.test/a">', counter('e'));
    expect(source).toBe(
      '<h1 data-tandem-id="e0"><a data-tandem-id="e1"></a></h1>' +
        '<h1 data-tandem-id="e2"><a data-tandem-id="e3"></a><a href="https://x.test/a" data-tandem-id="e4"></a></h1>',
    );
    expect(normalizePage(tools, source, counter('x'))).toBe(source);
  });

  it('[PAGE3] lists elements with their tag, collapsed text and a hash that follows their HTML', () => {
    const { elements, byTag } = page();
    expect(elements.map((element) => element.tag)).toEqual(['h1', 'p', 'a', 'ul', 'li']);
    expect(byTag('p').text).toBe('Read the docs.');
    const changed = readElements(tools, normalizePage(tools, landing.replace('one', 'two'), counter('e')));
    expect(changed.find((element) => element.tag === 'h1')!.hash).toBe(byTag('h1').hash);
    expect(changed.find((element) => element.tag === 'li')!.hash).not.toBe(byTag('li').hash);
  });

  it('[PAGE4] finds the start tag of an element in the source, not a look-alike in its text', () => {
    const source = '<p data-tandem-id="a">x data-tandem-id="b" y</p><b data-tandem-id="b">z</b>';
    expect(elementRangeInSource(source, 'b')).toEqual({ from: source.indexOf('<b'), to: source.indexOf('>z') + 1 });
    expect(elementRangeInSource(source, 'c')).toBeNull();
  });
});

describe('page applier', () => {
  it('[PAGE5] set_text, set_attribute and replace_element change the candidate, never the source', () => {
    const { source, byTag, run } = page();
    const h1 = byTag('h1');
    const a = byTag('a');
    const li = byTag('li');
    const result = applyPageOps(tools, source, [], [
      { op: 'set_text', elementId: h1.id, text: 'Welcome', expectHash: h1.hash, instructionId: 'i1' },
      { op: 'set_attribute', elementId: a.id, name: 'href', value: 'https://example.com/fixed', expectHash: a.hash, instructionId: 'i2' },
      { op: 'replace_element', elementId: li.id, html: '<li onclick="x()">one <em>more</em></li>', expectHash: li.hash, instructionId: 'i2' },
    ], run);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.changes.map((change) => change.op)).toEqual(['set_text', 'set_attribute', 'replace_element']);
    expect(candidateOf(tools, source, result.changes)).toBe(
      '<h1 data-tandem-id="e0">Welcome</h1><p data-tandem-id="e1">Read <a href="https://example.com/fixed" data-tandem-id="e2">the docs</a>.</p>' +
        '<ul data-tandem-id="e3"><li data-tandem-id="e4">one <em data-tandem-id="n0">more</em></li></ul>',
    );
  });

  it('[PAGE5] refuses a stale hash with STALE_ELEMENT naming the element', () => {
    const { source, byTag, run } = page();
    const result = applyPageOps(tools, source, [], [{ op: 'set_text', elementId: byTag('h1').id, text: 'x', expectHash: 'nope', instructionId: 'i1' }], run);
    expect(result).toMatchObject({ ok: false, error: { code: 'STALE_ELEMENT', index: 0, elementId: byTag('h1').id } });
  });

  it('[PAGE5] refuses an element outside the fence and an instruction of another run', () => {
    const { source, byTag, run } = page();
    const h1 = byTag('h1');
    const fenced = { ...run, fence: new Set(['e4']) };
    expect(applyPageOps(tools, source, [], [{ op: 'set_text', elementId: h1.id, text: 'x', expectHash: h1.hash, instructionId: 'i1' }], fenced)).toMatchObject({
      ok: false,
      error: { code: 'OUTSIDE_FENCE', index: 0 },
    });
    expect(applyPageOps(tools, source, [], [{ op: 'set_text', elementId: h1.id, text: 'x', expectHash: h1.hash, instructionId: 'other' }], run)).toMatchObject({
      ok: false,
      error: { code: 'INVALID_OP', index: 0 },
    });
  });

  it('[PAGE6] refuses attributes other than class, href, alt and title, and hrefs that are not http(s)', () => {
    const { source, byTag, run } = page();
    const a = byTag('a');
    for (const [name, value] of [['onclick', 'x()'], ['style', 'color:red'], ['href', 'javascript:alert(1)'], ['href', 'data:text/html,x'], ['href', '/relative']]) {
      const result = applyPageOps(tools, source, [], [
        { op: 'set_text', elementId: byTag('h1').id, text: 'ok', expectHash: byTag('h1').hash, instructionId: 'i1' },
        { op: 'set_attribute', elementId: a.id, name, value, expectHash: a.hash, instructionId: 'i1' },
      ], run);
      expect(result, `${name}=${value}`).toMatchObject({ ok: false, error: { code: 'INVALID_OP', index: 1, elementId: a.id } });
    }
  });

  it('[PAGE6] refuses replace_element whose sanitized HTML is not exactly one element', () => {
    const { source, byTag, run } = page();
    const h1 = byTag('h1');
    for (const html of ['', 'text only', '<b>a</b><b>b</b>', '<script>alert(1)</script>']) {
      const result = applyPageOps(tools, source, [], [{ op: 'replace_element', elementId: h1.id, html, expectHash: h1.hash, instructionId: 'i1' }], run);
      expect(result, html).toMatchObject({ ok: false, error: { code: 'INVALID_OP', index: 0 } });
    }
  });

  it('[PAGE7] replays earlier changes of the run and skips those whose element people removed', () => {
    const { source, byTag, run } = page();
    const h1 = byTag('h1');
    const li = byTag('li');
    const first = applyPageOps(tools, source, [], [{ op: 'set_text', elementId: h1.id, text: 'Short', expectHash: h1.hash, instructionId: 'i1' }], run);
    if (!first.ok) throw new Error(first.error.message);
    const second = applyPageOps(tools, source, first.changes, [{ op: 'set_text', elementId: li.id, text: 'ONE', expectHash: li.hash, instructionId: 'i2' }], run);
    if (!second.ok) throw new Error(second.error.message);
    const all = [...first.changes, ...second.changes];
    expect(candidateOf(tools, source, all)).toContain('<h1 data-tandem-id="e0">Short</h1>');
    expect(candidateOf(tools, source, all)).toContain('<li data-tandem-id="e4">ONE</li>');
    const withoutList = source.replace(/<ul.*<\/ul>/, '');
    expect(candidateOf(tools, withoutList, all)).toBe(
      '<h1 data-tandem-id="e0">Short</h1><p data-tandem-id="e1">Read <a href="https://example.com/x" data-tandem-id="e2">the docs</a>.</p>',
    );
  });
});
