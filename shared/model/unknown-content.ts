import * as Y from 'yjs';
import { Fragment, type Node, type NodeType, type Schema } from 'prosemirror-model';
import { updateYFragment } from 'y-prosemirror';
import type { AnyYType } from './doc-layout.ts';

/**
 * Content a newer build wrote that this build's schema does not know (VER6, VER7).
 *
 * y-prosemirror builds every Yjs element with `schema.node(name, attrs, children)` and deletes
 * the element, for every peer, when that throws (an unknown node name), and a text whose marks
 * `schema.mark` refuses. Two answers, so that this build never deletes what it does not know:
 *
 * - an element of an unknown name where a block may stand becomes an `unknown_block`: an atom
 *   that shows the name, whose Yjs element stays as it is. y-prosemirror pairs ProseMirror nodes
 *   with Yjs elements by identity first, so while the atom is not replaced, typing beside it
 *   leaves the element and all it holds untouched. It does not while pairing what lies between
 *   two changed blocks (it replaces an element the node of another name stands for), so a
 *   change is written one stretch between held elements at a time (`updateYFragmentKeepingUnknown`);
 * - anything else the schema cannot hold faithfully (an unknown mark, an attribute a node does
 *   not have, an unknown element where no block may stand, an embed) is *unreadable*: y-prosemirror
 *   would delete it, or drop it on the next edit of its block. The editor then does not bind the
 *   text (it shows a read-only copy and `Tandem was updated — reload`).
 */

export const unknownBlockName = 'unknown_block';

/** y-prosemirror's key for a mark that may overlap itself: `<name>--<hash of its attrs>`. */
const hashedMarkName = /(.*)(--[a-zA-Z0-9+/=]{8})$/;

/**
 * Makes `schema.node` build an element of a name the schema lacks as an `unknown_block` that
 * names it, instead of throwing (y-prosemirror's only way to build elements). Every other call
 * is the schema's own.
 */
export function keepUnknownElements(schema: Schema): void {
  const build = schema.node.bind(schema);
  const holder = schema.nodes[unknownBlockName];
  schema.node = (type, attrs, content, marks) => {
    if (typeof type !== 'string' || type in schema.nodes) return build(type, attrs, content, marks);
    const id = attrs && typeof attrs.id === 'string' ? attrs.id : null;
    return holder.create({ name: type, id });
  };
}

/**
 * `node` without the `unknown_block`s it holds, at any depth: what this build's Markdown, block
 * list and agents see of a text (a newer build's block is nothing they can read or address).
 */
export function withoutUnknownBlocks(node: Node): Node {
  if (node.isTextblock || node.isLeaf) return node;
  let changed = false;
  const kept: Node[] = [];
  node.forEach((child) => {
    if (child.type.name === unknownBlockName) {
      changed = true;
      return;
    }
    const next = withoutUnknownBlocks(child);
    if (next !== child) changed = true;
    kept.push(next);
  });
  return changed ? node.copy(Fragment.fromArray(kept)) : node;
}

/** y-prosemirror's binding metadata: which ProseMirror node each Yjs type was last written from or read into. */
type BindingMeta = Parameters<typeof updateYFragment>[3];

/**
 * VER6: `updateYFragment(ydoc, fragment, doc, meta)`, written so that no element held as an
 * `unknown_block` is replaced. y-prosemirror keeps the children equal by identity at both ends
 * and pairs the rest in order, replacing an element whose node has another name; so when `doc`
 * keeps the held elements' nodes, the change is written in stages, each changing only the
 * stretch before one held element (later stretches still hold their last written nodes), and
 * y-prosemirror sees every held element among the equal ends.
 */
export function updateYFragmentKeepingUnknown(ydoc: Y.Doc, fragment: Y.XmlFragment, doc: Node, meta: BindingMeta): void {
  for (const stage of stagesKeepingUnknown(fragment, doc, meta.mapping)) updateYFragment(ydoc, fragment, stage, meta);
}

function stagesKeepingUnknown(fragment: Y.XmlFragment, doc: Node, mapping: BindingMeta['mapping']): Node[] {
  const written = fragment.toArray().map((child) => mapping.get(child));
  const next: Node[] = [];
  doc.forEach((child) => next.push(child));
  const held: { index: number; at: number }[] = [];
  let from = 0;
  written.forEach((node, index) => {
    if (!node || Array.isArray(node) || node.type.name !== unknownBlockName) return;
    const at = next.indexOf(node, from);
    if (at < 0) return;
    held.push({ index, at });
    from = at + 1;
  });
  if (held.length === 0 || written.some((node) => !node || Array.isArray(node))) return [doc];
  const old = written as Node[];
  return [...held.map(({ index, at }) => doc.copy(Fragment.fromArray([...next.slice(0, at), ...old.slice(index)]))), doc];
}

/** Why `fragment` holds content the schema cannot hold faithfully, or null when it holds none. */
export function unreadableContent(fragment: Y.XmlFragment, schema: Schema): string | null {
  return checkChildren(fragment.toArray(), schema.topNodeType, schema);
}

/**
 * Why what `transaction` changed inside `fragment` is unreadable, or null. Reads only what the
 * transaction touched: each changed element's attributes, each changed text, and the children
 * it inserted, whole; cheap enough to run before every remote update reaches the editor.
 */
export function unreadableChange(transaction: Y.Transaction, fragment: Y.XmlFragment, schema: Schema): string | null {
  for (const [type] of transaction.changed) {
    const place = placeOf(type, fragment, schema);
    if (!place) continue;
    const problem =
      type instanceof Y.XmlText
        ? checkText(type, schema)
        : !(type instanceof Y.XmlFragment)
          ? null
          : place.heldWhole && type instanceof Y.XmlElement
            ? checkMarksWithin(type, schema)
            : checkChanged(type, transaction, schema);
    if (problem) return problem;
  }
  return null;
}

/** A changed element of a known type (or the fragment): its attributes, and the children this transaction inserted, whole. */
function checkChanged(type: Y.XmlFragment, transaction: Y.Transaction, schema: Schema): string | null {
  const nodeType = type instanceof Y.XmlElement ? schema.nodes[type.nodeName] : schema.topNodeType;
  const problem = type instanceof Y.XmlElement ? checkAttributes(type, nodeType) : null;
  return problem ?? checkChildren(type.toArray().filter((child) => isNew(child, transaction)), nodeType, schema);
}

/**
 * Whether `type` lies inside `fragment` (null when not, or when it is deleted), and whether an
 * element of an unknown name holds it or is it (`heldWhole`).
 */
function placeOf(type: AnyYType, fragment: Y.XmlFragment, schema: Schema): { heldWhole: boolean } | null {
  let heldWhole = false;
  for (let current: AnyYType | null = type; current; current = (current._item?.parent as AnyYType | undefined) ?? null) {
    if (current === fragment) return { heldWhole };
    if (current._item?.deleted) return null;
    if (current instanceof Y.XmlElement && (!(current.nodeName in schema.nodes) || current.nodeName === unknownBlockName)) heldWhole = true;
  }
  return null;
}

function isNew(child: Y.XmlElement | Y.XmlText | Y.XmlHook, transaction: Y.Transaction): boolean {
  const id = child._item?.id;
  return !!id && id.clock >= (transaction.beforeState.get(id.client) ?? 0);
}

function checkChildren(children: readonly (Y.XmlElement | Y.XmlText | Y.XmlHook)[], parentType: NodeType, schema: Schema): string | null {
  for (const child of children) {
    const problem =
      child instanceof Y.XmlText ? checkText(child, schema) : child instanceof Y.XmlElement ? checkElement(child, parentType, schema) : 'a hook';
    if (problem) return problem;
  }
  return null;
}

function checkElement(element: Y.XmlElement, parentType: NodeType, schema: Schema): string | null {
  const type = schema.nodes[element.nodeName];
  if (!type || element.nodeName === unknownBlockName) {
    if (parentType.contentMatch.matchType(schema.nodes[unknownBlockName]) === null) {
      return `an element "${element.nodeName}" inside "${parentType.name}"`;
    }
    // Its children are built, then dropped, before the element becomes an unknown_block; a
    // text among them with a mark the schema lacks would be deleted while building.
    return checkMarksWithin(element, schema);
  }
  return checkAttributes(element, type) ?? checkChildren(element.toArray(), type, schema);
}

function checkAttributes(element: Y.XmlElement, type: NodeType): string | null {
  for (const key of Object.keys(element.getAttributes())) {
    if (!(key in (type.spec.attrs ?? {}))) return `an attribute "${key}" of "${element.nodeName}"`;
  }
  return null;
}

function checkMarksWithin(element: Y.XmlElement, schema: Schema): string | null {
  for (const child of element.toArray()) {
    const problem = child instanceof Y.XmlText ? checkText(child, schema) : child instanceof Y.XmlElement ? checkMarksWithin(child, schema) : null;
    if (problem) return problem;
  }
  return null;
}

function checkText(text: Y.XmlText, schema: Schema): string | null {
  for (const op of text.toDelta() as { insert: unknown; attributes?: Record<string, unknown> }[]) {
    if (typeof op.insert !== 'string') return 'an embed in a text';
    for (const [key, value] of Object.entries(op.attributes ?? {})) {
      const name = hashedMarkName.exec(key)?.[1] ?? key;
      const mark = schema.marks[name];
      if (!mark) return `a mark "${name}"`;
      const known = mark.spec.attrs ?? {};
      for (const attr of Object.keys(value && typeof value === 'object' ? value : {})) {
        if (!(attr in known)) return `an attribute "${attr}" of the mark "${name}"`;
      }
    }
  }
  return null;
}

/**
 * VER7: takes out of `fragment` — a scratch copy, never the live text — what the schema cannot
 * hold (unknown marks and attributes), so that the read-only copy built from it shows all the
 * text it can. What y-prosemirror cannot build at all it then drops, from the copy only.
 */
export function stripUnreadable(fragment: Y.XmlFragment, schema: Schema): void {
  const strip = (type: Y.XmlElement | Y.XmlText | Y.XmlHook) => {
    if (type instanceof Y.XmlText) {
      let index = 0;
      for (const op of type.toDelta() as { insert: string | object; attributes?: Record<string, unknown> }[]) {
        const length = typeof op.insert === 'string' ? op.insert.length : 1;
        const unknown = Object.keys(op.attributes ?? {}).filter((key) => !((hashedMarkName.exec(key)?.[1] ?? key) in schema.marks));
        if (unknown.length > 0) type.format(index, length, Object.fromEntries(unknown.map((key) => [key, null])));
        index += length;
      }
    } else if (type instanceof Y.XmlElement) {
      const nodeType = schema.nodes[type.nodeName];
      if (!nodeType) return;
      for (const key of Object.keys(type.getAttributes())) if (!(key in (nodeType.spec.attrs ?? {}))) type.removeAttribute(key);
      type.toArray().forEach(strip);
    }
  };
  const stripAll = () => fragment.toArray().forEach(strip);
  if (fragment.doc) fragment.doc.transact(stripAll);
  else stripAll();
}
