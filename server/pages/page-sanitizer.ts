import { html as parse5Html } from 'parse5';
import { pagePurifyConfig } from '../../shared/page/page-tools.ts';
import { DomElement, serializeChildren, type DomChild, type DomParent } from './page-dom.ts';
import * as lists from './purify-lists.ts';

/**
 * PAGE2 on the server: DOMPurify's sanitizing, rule for rule, over the server's page DOM
 * (page-dom.ts) instead of jsdom, where DOMPurify took 5–8 s for a 20,000-element page. Each
 * check below is DOMPurify 3.5.0's (`_sanitizeElements`, `_isUnsafeNode`, `_checkValidNamespace`,
 * `_sanitizeAttributes`, `_isValidAttribute`), with its lists (purify-lists.ts) and Tandem's configuration
 * (shared/page/page-tools.ts `pagePurifyConfig`); the options Tandem leaves at their defaults
 * (KEEP_CONTENT, SAFE_FOR_XML, SANITIZE_DOM, data- and aria- attributes allowed, no custom
 * elements, no hooks) are written in. tests/unit/page-sanitizer.test.ts holds it to DOMPurify
 * over jsdom: on generated and known-hostile markup, DOMPurify removes nothing more from its
 * output, and the text kept is the text DOMPurify keeps.
 *
 * DOMPurify's in-place pre-pass (`_neutralizePatchLinkage`) means to remove comments that hold
 * markup before the walk, but it removes them with `Element.prototype.remove`, which throws for
 * a comment (caught): they stay, and the walk judges their parents with them, as here.
 */

const { NS } = parse5Html;

const setOf = (...parts: (readonly string[])[]) => new Set(parts.flat());

const allowedTags = setOf(lists.htmlTags, lists.svgTags, lists.svgFilterTags, lists.mathMlTags, lists.textTags, ['tbody']);
const allowedAttributes = setOf(lists.htmlAttributes, lists.svgAttributes, lists.mathMlAttributes, lists.xmlAttributes);
const forbidTags = setOf(pagePurifyConfig.FORBID_TAGS.map((tag) => tag.toLowerCase()));
const forbidAttributes = setOf(pagePurifyConfig.FORBID_ATTR.map((name) => name.toLowerCase()));
const forbidContents = setOf(lists.forbidContents);
const dataUriTags = setOf(lists.dataUriTags);
const uriSafeAttributes = setOf(lists.uriSafeAttributes);
const allSvgTags = setOf(lists.svgTags, lists.svgFilterTags, lists.svgDisallowedTags);
const allMathMlTags = setOf(lists.mathMlTags, lists.mathMlDisallowedTags);
const mathMlTextIntegrationPoints = setOf(lists.mathMlTextIntegrationPoints);
const htmlIntegrationPoints = new Set(['annotation-xml']);
const commonSvgAndHtml = setOf(lists.commonSvgAndHtmlElements);
const voidElements = setOf(lists.voidElements);
const literalTextElements = setOf(lists.literalTextElements);
const escapableTextElements = setOf(lists.escapableTextElements);
const clobberingNames = setOf(lists.clobberingNames);

const elementMarkupProbe = /<[/\w!]/;
const commentUnsafe = /<[/\w]|^-?>|--!?>|<!-$/;
const fallbackTagClose = /<\/no(script|embed|frames)/i;
const attrValueBreakout = /((--!?|])>)|<\/(style|script|title|xmp|textarea|noscript|iframe|noembed|noframes)/i;
const dataAttribute = /^data-[-\w.\u00B7-\uFFFF]+$/;
const ariaAttribute = /^aria-[-\w]+$/;
// eslint-disable-next-line no-control-regex -- DOMPurify's pattern: control characters are the whitespace it strips
const attrWhitespace = /[\u0000-\u0020\u00A0\u1680\u180E\u2000-\u2029\u205F\u3000]/g;
const allowedUri = pagePurifyConfig.ALLOWED_URI_REGEXP;

/** Sanitizes the children of `root` in place. Iterative: no depth of the tree overflows it. */
export function sanitizePageTree(root: DomParent): void {
  // In document order, as DOMPurify's node iterator goes: each open element's children not yet
  // judged, first child last. An element that goes but keeps its
  // content leaves its children in its place, to be judged next, as the iterator meets them.
  const open: { parent: DomParent; pending: DomChild[] }[] = [{ parent: root, pending: root.childNodes.reverse() }];
  root.childNodes = [];
  while (open.length > 0) {
    const { parent, pending } = open[open.length - 1];
    const node = pending.pop();
    if (node === undefined) {
      open.pop();
      continue;
    }
    node.parentNode = parent;
    const verdict = judge(node, parent);
    if (verdict === 'keep') {
      parent.childNodes.push(node);
      if (node instanceof DomElement) {
        sanitizeAttributes(node);
        if (node.childNodes.length > 0) {
          open.push({ parent: node, pending: node.childNodes.reverse() });
          node.childNodes = [];
        }
      }
    } else {
      node.parentNode = null;
      if (verdict === 'unwrap') {
        const children = (node as DomElement).childNodes;
        for (let at = children.length - 1; at >= 0; at--) pending.push(children[at]);
      }
    }
  }
}

type Verdict = 'keep' | 'remove' | 'unwrap';

/** `_sanitizeElements`: whether `node` stays, goes, or goes leaving its children. */
function judge(node: DomChild, parent: DomParent): Verdict {
  const tagName = node instanceof DomElement ? lowerName(node) : node.nodeName;
  if (isUnsafe(node, tagName)) return 'remove';
  if (forbidTags.has(tagName) || !allowedTags.has(tagName)) return !forbidContents.has(tagName) && node instanceof DomElement ? 'unwrap' : 'remove';
  if (node instanceof DomElement) {
    if (!validNamespace(node, tagName, parent)) return 'remove';
    if ((tagName === 'noscript' || tagName === 'noembed' || tagName === 'noframes') && fallbackTagClose.test(node.innerHTML)) return 'remove';
  }
  return 'keep';
}

/** The tag name as DOMPurify compares it: the DOM's `nodeName` in lower case. */
function lowerName(element: DomElement): string {
  return element.namespaceURI === NS.HTML ? element.localName : element.localName.toLowerCase();
}

/** `_isUnsafeNode`: mXSS by namespace confusion, elements no parser makes, comments that look like markup. */
function isUnsafe(node: DomChild, tagName: string): boolean {
  if (node instanceof DomElement) {
    const children = node.childNodes;
    if (children.length > 0 && !children.some((child) => child.nodeType === 1)) {
      // No element children: the text content is the text children's.
      let text = '';
      for (const child of children) if (child.nodeType === 3) text += (child as { data: string }).data;
      if (elementMarkupProbe.test(text) && elementMarkupProbe.test(serializeChildren(node))) return true;
    }
    return isMalformed(node, tagName);
  }
  return node.nodeType === 8 && commentUnsafe.test((node as { data: string }).data);
}

/** `_isMalformedElement`. */
function isMalformed(element: DomElement, tagName: string): boolean {
  const isVoid = voidElements.has(tagName);
  const literal = literalTextElements.has(tagName);
  if (!isVoid && !literal && !escapableTextElements.has(tagName)) return false;
  if (element.namespaceURI !== NS.HTML) return false;
  if (isVoid) return element.childNodes.length > 0;
  if (element.childNodes.some((child) => child.nodeType === 1)) return true;
  return literal && elementMarkupProbe.test(element.textContent);
}

/** `_checkValidNamespace`: false for an element in a namespace where no spec-compliant parser puts it. */
function validNamespace(element: DomElement, tagName: string, parent: DomParent): boolean {
  const inElement = parent instanceof DomElement;
  const parentNamespace = inElement ? parent.namespaceURI : NS.HTML;
  const parentTag = inElement ? lowerName(parent) : 'template';
  switch (element.namespaceURI) {
    case NS.SVG:
      if (parentNamespace === NS.HTML) return tagName === 'svg';
      if (parentNamespace === NS.MATHML) return tagName === 'svg' && (parentTag === 'annotation-xml' || mathMlTextIntegrationPoints.has(parentTag));
      return allSvgTags.has(tagName);
    case NS.MATHML:
      if (parentNamespace === NS.HTML) return tagName === 'math';
      if (parentNamespace === NS.SVG) return tagName === 'math' && htmlIntegrationPoints.has(parentTag);
      return allMathMlTags.has(tagName);
    case NS.HTML:
      if (parentNamespace === NS.SVG && !htmlIntegrationPoints.has(parentTag)) return false;
      if (parentNamespace === NS.MATHML && !mathMlTextIntegrationPoints.has(parentTag)) return false;
      return !allMathMlTags.has(tagName) && (commonSvgAndHtml.has(tagName) || !allSvgTags.has(tagName));
    default:
      return false;
  }
}

/** `_sanitizeAttributes`: from the last attribute to the first, as DOMPurify goes. */
function sanitizeAttributes(element: DomElement): void {
  const attrs = element.attrs;
  if (attrs.length === 0) return;
  const lcTag = lowerName(element);
  let removed: Set<number> | null = null;
  let emptyIs = false;
  for (let at = attrs.length - 1; at >= 0; at--) {
    const attr = attrs[at];
    const name = attr.prefix ? `${attr.prefix}:${attr.name}` : attr.name;
    const lcName = name.toLowerCase();
    const value = name === 'value' ? attr.value : attr.value.trim();
    const unsafe = attrValueBreakout.test(value) || (lcName === 'attributename' && value.includes('href'));
    if (unsafe || !isValidAttribute(lcTag, lcName, value)) {
      (removed ??= new Set()).add(at);
      // DOMPurify sets an `is` it removed again, empty, so that no customized built-in upgrades.
      if (name === 'is') emptyIs = true;
      continue;
    }
    attr.value = value;
  }
  if (removed) element.attrs = attrs.filter((_, at) => !removed.has(at));
  if (emptyIs) element.attrs.push({ name: 'is', value: '' });
}

/** `_isValidAttribute`. */
function isValidAttribute(lcTag: string, lcName: string, value: string): boolean {
  if (forbidAttributes.has(lcName)) return false;
  if (lcName === 'patchsrc' || (lcName === 'for' && lcTag !== 'label' && lcTag !== 'output')) return false;
  // DOM clobbering: an id or name that would shadow a property of the document or of a form.
  if ((lcName === 'id' || lcName === 'name') && clobberingNames.has(value)) return false;
  if (dataAttribute.test(lcName) || ariaAttribute.test(lcName)) return true;
  if (!allowedAttributes.has(lcName)) return false;
  if (uriSafeAttributes.has(lcName)) return true;
  if (allowedUri.test(value.replace(attrWhitespace, ''))) return true;
  if ((lcName === 'src' || lcName === 'xlink:href' || lcName === 'href') && lcTag !== 'script' && value.startsWith('data:') && dataUriTags.has(lcTag)) return true;
  return !value;
}
