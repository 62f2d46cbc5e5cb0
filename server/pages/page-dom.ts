import { html as parse5Html, parseFragment, serialize, serializeOuter, type Token, type TreeAdapter, type TreeAdapterTypeMap } from 'parse5';

/**
 * The server's DOM for pages: parse5's tree (the WHATWG parser jsdom itself runs), in nodes that
 * answer the part of the DOM that shared/page/ uses (page-model.ts, page-applier.ts) — reading
 * and writing attributes and text, cloning, replacing, listing elements, serializing. jsdom
 * builds a full DOM for each node the parser makes, and that alone cost about 0.8 s to parse a
 * 20,000-element page and as much again to serialize it; these nodes are plain objects with
 * arrays of children, and parse5 parses and serializes them with its own algorithms, as jsdom
 * and a browser do. Nothing here loads or runs anything.
 */

const HTML = parse5Html.NS.HTML;

type Attribute = Token.Attribute;

export type DomParent = DomElement | DomFragment;
export type DomChild = DomElement | DomText | DomComment;

abstract class DomNode {
  parentNode: DomParent | null = null;
  abstract readonly nodeType: number;
  abstract readonly nodeName: string;

  get nextSibling(): DomChild | null {
    const siblings = this.parentNode?.childNodes;
    if (!siblings) return null;
    return siblings[siblings.indexOf(this as unknown as DomChild) + 1] ?? null;
  }

  remove(): void {
    const parent = this.parentNode;
    if (!parent) return;
    parent.childNodes.splice(parent.childNodes.indexOf(this as unknown as DomChild), 1);
    this.parentNode = null;
  }

  replaceWith(node: DomChild): void {
    const parent = this.parentNode;
    if (!parent) return;
    node.remove();
    parent.childNodes[parent.childNodes.indexOf(this as unknown as DomChild)] = node;
    node.parentNode = parent;
    this.parentNode = null;
  }
}

abstract class DomContainer extends DomNode {
  childNodes: DomChild[] = [];

  get firstChild(): DomChild | null {
    return this.childNodes[0] ?? null;
  }

  get firstElementChild(): DomElement | null {
    return (this.childNodes.find((child) => child.nodeType === 1) as DomElement | undefined) ?? null;
  }

  hasChildNodes(): boolean {
    return this.childNodes.length > 0;
  }

  appendChild(node: DomChild): DomChild {
    node.remove();
    this.childNodes.push(node);
    node.parentNode = this as unknown as DomParent;
    return node;
  }

  append(...nodes: (DomChild | DomFragment)[]): void {
    for (const node of nodes) {
      if (node instanceof DomFragment) for (const child of [...node.childNodes]) this.appendChild(child);
      else this.appendChild(node);
    }
  }

  /** The elements below, in document order. Only `*`: shared/page/ asks no other selector. */
  querySelectorAll(selector: string): DomElement[] {
    if (selector !== '*') throw new Error(`The server's page DOM answers only querySelectorAll('*'), not ${selector}.`);
    return descendantElements(this);
  }

  get textContent(): string {
    return textOf(this);
  }

  set textContent(text: string) {
    for (const child of this.childNodes) child.parentNode = null;
    this.childNodes = [];
    if (text !== '') this.appendChild(new DomText(text));
  }

  get innerHTML(): string {
    return serialize(this as unknown as DomParent, { treeAdapter: pageTreeAdapter });
  }
}

export class DomFragment extends DomContainer {
  get nodeType(): 11 {
    return 11;
  }

  get nodeName(): string {
    return '#document-fragment';
  }

  cloneNode(deep = false): DomFragment {
    const copy = new DomFragment();
    if (deep) for (const child of this.childNodes) copy.appendChild(child.cloneNode(true));
    return copy;
  }
}

export class DomElement extends DomContainer {
  get nodeType(): 1 {
    return 1;
  }

  /** parse5's template content; templates never survive sanitizing, but the parser makes them. */
  content: DomFragment | null = null;

  constructor(
    /** As the parser names it: lower case in HTML, SVG's and MathML's own case (`foreignObject`). */
    readonly localName: string,
    readonly namespaceURI: string,
    public attrs: Attribute[],
  ) {
    super();
  }

  /** As the DOM names it: upper case for an HTML element, the local name otherwise. */
  get tagName(): string {
    return this.namespaceURI === HTML ? this.localName.toUpperCase() : this.localName;
  }

  get nodeName(): string {
    return this.tagName;
  }

  /** The attributes by qualified name (`xlink:href`), as the DOM's `attributes` list them. */
  get attributes(): { name: string; value: string }[] {
    return this.attrs.map((attr) => ({ name: qualifiedName(attr), value: attr.value }));
  }

  getAttribute(name: string): string | null {
    const wanted = this.namespaceURI === HTML ? name.toLowerCase() : name;
    return this.attrs.find((attr) => qualifiedName(attr) === wanted)?.value ?? null;
  }

  hasAttribute(name: string): boolean {
    return this.getAttribute(name) !== null;
  }

  setAttribute(name: string, value: string): void {
    const wanted = this.namespaceURI === HTML ? name.toLowerCase() : name;
    const attr = this.attrs.find((each) => qualifiedName(each) === wanted);
    if (attr) attr.value = value;
    else this.attrs.push({ name: wanted, value });
  }

  removeAttribute(name: string): void {
    const wanted = this.namespaceURI === HTML ? name.toLowerCase() : name;
    this.attrs = this.attrs.filter((attr) => qualifiedName(attr) !== wanted);
  }

  get outerHTML(): string {
    return serializeOuter(this, { treeAdapter: pageTreeAdapter });
  }

  cloneNode(deep = false): DomElement {
    const copy = new DomElement(this.localName, this.namespaceURI, this.attrs.map((attr) => ({ ...attr })));
    if (deep) {
      for (const child of this.childNodes) copy.appendChild(child.cloneNode(true));
      if (this.content) copy.content = this.content.cloneNode(true);
    }
    return copy;
  }
}

// The node types and names are getters on the prototypes: the parser makes one node per tag and
// text run, and fields of their own would be set on each.
export class DomText extends DomNode {
  get nodeType(): 3 {
    return 3;
  }

  get nodeName(): string {
    return '#text';
  }

  constructor(public data: string) {
    super();
  }

  get textContent(): string {
    return this.data;
  }

  cloneNode(): DomText {
    return new DomText(this.data);
  }
}

export class DomComment extends DomNode {
  get nodeType(): 8 {
    return 8;
  }

  get nodeName(): string {
    return '#comment';
  }

  constructor(public data: string) {
    super();
  }

  get textContent(): string {
    return this.data;
  }

  cloneNode(): DomComment {
    return new DomComment(this.data);
  }
}

/** The document a fragment parser needs; pages never hold one. */
class DomDocument extends DomContainer {
  get nodeType(): 9 {
    return 9;
  }

  get nodeName(): string {
    return '#document';
  }

  mode: parse5Html.DOCUMENT_MODE = parse5Html.DOCUMENT_MODE.NO_QUIRKS;
}

function qualifiedName(attr: Attribute): string {
  return attr.prefix ? `${attr.prefix}:${attr.name}` : attr.name;
}

/** The elements under `root`, in document order; a stack, so no depth overflows it. */
export function descendantElements(root: DomParent | DomContainer): DomElement[] {
  const found: DomElement[] = [];
  const stack: DomChild[] = [...root.childNodes].reverse();
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.nodeType !== 1) continue;
    found.push(node as DomElement);
    const children = (node as DomElement).childNodes;
    for (let at = children.length - 1; at >= 0; at--) stack.push(children[at]);
  }
  return found;
}

function textOf(root: DomContainer): string {
  let text = '';
  // Most elements hold text only: no stack for them.
  if (root.childNodes.every((child) => child.nodeType !== 1)) {
    for (const child of root.childNodes) if (child.nodeType === 3) text += (child as DomText).data;
    return text;
  }
  const stack: DomChild[] = [...root.childNodes].reverse();
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.nodeType === 3) text += (node as DomText).data;
    else if (node.nodeType === 1) {
      const children = (node as DomElement).childNodes;
      for (let at = children.length - 1; at >= 0; at--) stack.push(children[at]);
    }
  }
  return text;
}

type PageTreeTypes = TreeAdapterTypeMap<DomNode, DomParent | DomDocument, DomChild, DomDocument, DomFragment, DomElement, DomComment, DomText, DomElement, never>;

function insertAt(parent: DomContainer, node: DomChild, at: number): void {
  parent.childNodes.splice(at, 0, node);
  node.parentNode = parent as unknown as DomParent;
}

/** How parse5 builds and reads these nodes (its TreeAdapter). */
export const pageTreeAdapter: TreeAdapter<PageTreeTypes> = {
  createDocument: () => new DomDocument(),
  createDocumentFragment: () => new DomFragment(),
  createElement: (tagName, namespaceURI, attrs) => new DomElement(tagName, namespaceURI, attrs),
  createCommentNode: (data) => new DomComment(data),
  createTextNode: (value) => new DomText(value),
  appendChild: (parent, node) => {
    (parent as DomContainer).childNodes.push(node);
    node.parentNode = parent as unknown as DomParent;
  },
  insertBefore: (parent, node, reference) => {
    const children = (parent as DomContainer).childNodes;
    insertAt(parent as DomContainer, node, children[children.length - 1] === reference ? children.length - 1 : children.indexOf(reference));
  },
  setTemplateContent: (template, content) => {
    template.content = content;
  },
  getTemplateContent: (template) => template.content ?? (template.content = new DomFragment()),
  setDocumentType: () => {},
  setDocumentMode: (document, mode) => {
    document.mode = mode;
  },
  getDocumentMode: (document) => document.mode,
  detachNode: (node) => node.remove(),
  insertText: (parent, text) => {
    const children = (parent as DomContainer).childNodes;
    const last = children[children.length - 1];
    if (last && last.nodeType === 3) (last as DomText).data += text;
    else {
      const node = new DomText(text);
      children.push(node);
      node.parentNode = parent as unknown as DomParent;
    }
  },
  insertTextBefore: (parent, text, reference) => {
    const children = (parent as DomContainer).childNodes;
    const at = children.indexOf(reference);
    const before = children[at - 1];
    if (before && before.nodeType === 3) (before as DomText).data += text;
    else insertAt(parent as DomContainer, new DomText(text), at);
  },
  adoptAttributes: (recipient, attrs) => {
    const present = new Set(recipient.attrs.map((attr) => attr.name));
    for (const attr of attrs) if (!present.has(attr.name)) recipient.attrs.push(attr);
  },
  getFirstChild: (node) => (node as DomContainer).childNodes[0] ?? null,
  getChildNodes: (node) => (node as DomContainer).childNodes,
  getParentNode: (node) => node.parentNode,
  getAttrList: (element) => element.attrs,
  getTagName: (element) => element.localName,
  getNamespaceURI: (element) => element.namespaceURI as parse5Html.NS,
  getTextNodeContent: (text) => text.data,
  getCommentNodeContent: (comment) => comment.data,
  getDocumentTypeNodeName: () => '',
  getDocumentTypeNodePublicId: () => '',
  getDocumentTypeNodeSystemId: () => '',
  isTextNode: (node): node is DomText => node.nodeType === 3,
  isCommentNode: (node): node is DomComment => node.nodeType === 8,
  isDocumentTypeNode: (_node): _node is never => false,
  isElementNode: (node): node is DomElement => node.nodeType === 1,
  setNodeSourceCodeLocation: () => {},
  getNodeSourceCodeLocation: () => undefined,
  updateNodeSourceCodeLocation: () => {},
};

/**
 * `html` parsed as a template's content (parse5's fragment parsing without a context element is
 * exactly that): inert, table parts parse outside a table. Scripting counts as on, as for a
 * template's `innerHTML` in the browser's window, where the app's DOMPurify reads the page again:
 * a `<noscript>` holds raw text, as it does there.
 */
export function parsePageFragment(html: string): DomFragment {
  return parseFragment(html, { treeAdapter: pageTreeAdapter });
}

/** The HTML fragment serialization of `root`'s children (a template's `innerHTML`). */
export function serializeChildren(root: DomParent): string {
  return serialize(root, { treeAdapter: pageTreeAdapter });
}
