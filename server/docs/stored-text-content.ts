import * as decoding from 'lib0/decoding';
import type { Node } from 'prosemirror-model';
import { schema } from '../../shared/model/schema.ts';
import { defaultShapeLimits } from '../sync/update-shape.ts';
import { encodedNewTextState } from './new-text-state.ts';

/**
 * A text document's content and meta read straight from a state that new-text-state.ts wrote, or
 * null for any other state (the caller then applies it to a Y.Doc). An imported long text is
 * stored as such a state until someone edits it, and applying its hundreds of thousands of items
 * to a Y.Doc, only to project them to ProseMirror, cost seconds, most of it garbage collection.
 *
 * The state is read as the writer lays it out (one client, no deletes; each item's left origin
 * the sibling before it, a first child naming its parent, attributes after an element's
 * children), the nodes are made as y-prosemirror makes them (`schema.node` with the attributes
 * read, `schema.text`), and the content is written again: only when that gives the same bytes is
 * it the answer, so it is exactly the content y-prosemirror reads from the Y.Doc of that state
 * (new-text-state.ts holds the writer to Yjs's encoding, and such content reads back as itself).
 * A state whose items nest deeper than SHAPE2 allows is left to the shape check and Yjs.
 */
export function storedTextContent(state: Uint8Array): { content: Node; meta: { title: string; kind: string } } | null {
  let read: Read | null;
  try {
    read = readItems(state);
  } catch {
    return null;
  }
  if (read === null) return null;
  let content: Node;
  try {
    content = schema.topNodeType.create(null, read.root.children.map(nodeOf));
  } catch {
    // y-prosemirror drops a node it cannot make; Yjs reads such a state.
    return null;
  }
  const { title, kind } = read.meta;
  if (typeof title !== 'string' || typeof kind !== 'string' || content.childCount === 0) return null;
  const again = encodedNewTextState(content, { title, kind }, read.client);
  if (again === null || !sameBytes(again, state)) return null;
  return { content, meta: { title, kind } };
}

interface Element {
  kind: 'element';
  name: string;
  depth: number;
  parent: Element | null;
  children: (Element | Text)[];
  attrs: Record<string, unknown>;
}

interface Text {
  kind: 'text';
  depth: number;
  parent: Element;
  text: string | null;
}

interface Read {
  client: number;
  root: Element;
  meta: Record<string, unknown>;
}

/** The items of `state` as a tree, or null when they are not laid out as the writer lays them out. */
function readItems(state: Uint8Array): Read | null {
  const decoder = decoding.createDecoder(state);
  if (decoding.readVarUint(decoder) !== 1) return null;
  const count = decoding.readVarUint(decoder);
  const client = decoding.readVarUint(decoder);
  if (decoding.readVarUint(decoder) !== 0) return null;
  const limit = defaultShapeLimits.typeDepth;
  const root: Element = { kind: 'element', name: '', depth: 0, parent: null, children: [], attrs: {} };
  // Stands for the root `meta` while reading: it holds only keyed values.
  const metaHolder: Element = { kind: 'element', name: '', depth: 0, parent: null, children: [], attrs: {} };
  // Each type by its clock (a string's clocks are not referred to).
  const types: (Element | Text | undefined)[] = [];
  let clock = 0;
  for (let i = 0; i < count; i++) {
    const info = decoding.readUint8(decoder);
    const ref = info & 0b1_1111;
    if ((info & rightOriginBit) !== 0) return null;
    let parent: Element | Text;
    let key: string | null = null;
    let first = false;
    if ((info & originBit) !== 0) {
      if (decoding.readVarUint(decoder) !== client) return null;
      const left = types[decoding.readVarUint(decoder)];
      // Only a type follows a sibling, and only as the last child yet of that sibling's parent.
      if (left === undefined || ref !== refType || left.parent === null || left.parent.children[left.parent.children.length - 1] !== left) return null;
      parent = left.parent;
    } else {
      if (decoding.readVarUint(decoder) === 1) {
        const name = readString(decoder);
        if (name === 'content') parent = root;
        else if (name === 'meta') parent = metaHolder;
        else return null;
      } else {
        if (decoding.readVarUint(decoder) !== client) return null;
        const holder = types[decoding.readVarUint(decoder)];
        if (holder === undefined) return null;
        parent = holder;
      }
      if ((info & parentSubBit) !== 0) key = readString(decoder);
      first = key === null;
    }
    if (parent.depth + 1 > limit) return null;
    if (ref === refType) {
      if (key !== null || parent.kind !== 'element' || parent === metaHolder || (first && parent.children.length > 0)) return null;
      const typeRef = decoding.readVarUint(decoder);
      const depth = parent.depth + 1;
      let item: Element | Text;
      if (typeRef === xmlElementRef) item = { kind: 'element', name: readString(decoder), depth, parent, children: [], attrs: {} };
      else if (typeRef === xmlTextRef) item = { kind: 'text', depth, parent, text: null };
      else return null;
      parent.children.push(item);
      types[clock] = item;
      clock += 1;
    } else if (ref === refString) {
      if (key !== null || parent.kind !== 'text' || parent.text !== null) return null;
      parent.text = readString(decoder);
      clock += parent.text.length;
    } else if (ref === refAny) {
      if (key === null || parent.kind !== 'element' || decoding.readVarUint(decoder) !== 1) return null;
      const value = decoding.readAny(decoder);
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return null;
      parent.attrs[key] = value;
      clock += 1;
    } else {
      return null;
    }
  }
  // No deletes, and nothing after them.
  if (decoding.readVarUint(decoder) !== 0 || decoding.hasContent(decoder)) return null;
  return { client, root, meta: metaHolder.attrs };
}

/**
 * `decoding.readVarString`, with a short string of ASCII (a block's name, an attribute's key, most
 * of a paragraph) read byte by byte: the TextDecoder lib0 calls costs more per call than that.
 */
function readString(decoder: decoding.Decoder): string {
  const start = decoder.pos;
  const length = decoding.readVarUint(decoder);
  const { arr, pos } = decoder;
  if (length <= shortString && pos + length <= arr.length) {
    let text = '';
    for (let i = pos; i < pos + length; i++) {
      const byte = arr[i];
      if (byte === undefined || byte >= 0x80) {
        text = '';
        break;
      }
      text += String.fromCharCode(byte);
    }
    if (text.length === length) {
      decoder.pos = pos + length;
      return text;
    }
  }
  decoder.pos = start;
  return decoding.readVarString(decoder);
}

/** Up to how many bytes a string is read by `readString` itself. */
const shortString = 64;

/** The ProseMirror node of an element or a text, as y-prosemirror makes it (createNodeFromYElement); throws where it would drop one. */
function nodeOf(item: Element | Text): Node {
  if (item.kind === 'text') {
    if (item.text === null) throw new Error('A text without its string.');
    return schema.text(item.text);
  }
  return schema.node(item.name, item.attrs, item.children.map(nodeOf));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// The update format's item info bits (Yjs's Item.write) and content refs, as new-text-state.ts writes them.
const originBit = 0b1000_0000;
const rightOriginBit = 0b0100_0000;
const parentSubBit = 0b0010_0000;
const refString = 4;
const refType = 7;
const refAny = 8;
const xmlElementRef = 3;
const xmlTextRef = 6;
