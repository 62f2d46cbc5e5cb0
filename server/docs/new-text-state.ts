import * as encoding from 'lib0/encoding';
import type { Node } from 'prosemirror-model';

/**
 * The stored state of a new text document written straight from its ProseMirror content, byte
 * for byte what `Y.encodeStateAsUpdate` gives for a Y.Doc of client `client` that
 * y-prosemirror's `prosemirrorToYXmlFragment` filled with `content`, in which the meta `title`
 * and `kind` were then set (server/docs/create-doc.ts `writeNewDoc`; tests/unit/new-text-state.test.ts
 * holds the two to the same bytes). A long import is hundreds of thousands of Yjs items: building
 * them as objects, integrating them and encoding them cost seconds and most of it in garbage
 * collection, where writing their encoding is linear and allocates nothing per item.
 *
 * Only content that y-prosemirror writes as one text item per run of text is written here: no
 * marks (a mark becomes formatting items whose layout Yjs decides), attributes that are strings,
 * numbers or booleans (`writable`). For other content the answer is null, and the caller builds
 * the Y.Doc.
 */
export function encodedNewTextState(content: Node, meta: { title: string; kind: string }, client: number): Uint8Array | null {
  if (!writable(content)) return null;
  const structs = encoding.createEncoder();
  let clock = 0;
  let count = 0;

  /** One item's head: its info byte, then its left origin, or else its parent (a root's name or the id of the item holding it) and key. */
  const head = (ref: number, origin: number | null, parent: string | number, key: string | null) => {
    count++;
    encoding.writeUint8(structs, ref | (origin === null ? 0 : bit8) | (key === null ? 0 : bit6));
    if (origin !== null) {
      encoding.writeVarUint(structs, client);
      encoding.writeVarUint(structs, origin);
      return;
    }
    if (typeof parent === 'string') {
      encoding.writeVarUint(structs, 1);
      encoding.writeVarString(structs, parent);
    } else {
      encoding.writeVarUint(structs, 0);
      encoding.writeVarUint(structs, client);
      encoding.writeVarUint(structs, parent);
    }
    if (key !== null) encoding.writeVarString(structs, key);
  };

  // A list of children is inserted in one go: each one's left origin is the one before it, the
  // first one names its parent. A child's own children, then its attributes, come right after it.
  const children = (node: Node, parent: string | number) => {
    let left: number | null = null;
    node.forEach((child) => {
      const at = clock++;
      head(refType, left, parent, null);
      if (child.isText) {
        const text = child.text ?? '';
        encoding.writeVarUint(structs, xmlTextRef);
        head(refString, null, at, null);
        encoding.writeVarString(structs, text);
        clock += text.length;
      } else {
        encoding.writeVarUint(structs, xmlElementRef);
        encoding.writeVarString(structs, child.type.name);
        children(child, at);
        for (const key in child.attrs) {
          const value: unknown = child.attrs[key];
          if (value === null || key === 'ychange') continue;
          clock++;
          head(refAny, null, at, key);
          encoding.writeVarUint(structs, 1);
          encoding.writeAny(structs, value as string | number | boolean);
        }
      }
      left = at;
    });
  };
  children(content, 'content');
  for (const key of ['title', 'kind'] as const) {
    clock++;
    head(refAny, null, 'meta', key);
    encoding.writeVarUint(structs, 1);
    encoding.writeAny(structs, meta[key]);
  }

  const update = encoding.createEncoder();
  encoding.writeVarUint(update, 1);
  encoding.writeVarUint(update, count);
  encoding.writeVarUint(update, client);
  encoding.writeVarUint(update, 0);
  encoding.writeUint8Array(update, encoding.toUint8Array(structs));
  // No deletes.
  encoding.writeVarUint(update, 0);
  return encoding.toUint8Array(update);
}

/**
 * Whether every text node stands alone and has no marks, no node has marks, and every attribute
 * is a string, a number, a boolean, or null where its default is null: content that y-prosemirror
 * reads back from Yjs as it was written (read-text-views.ts relies on it).
 */
function writable(node: Node): boolean {
  let ok = true;
  let textBefore = false;
  node.forEach((child) => {
    if (!ok) return;
    if (child.marks.length > 0 || (child.isText && textBefore)) {
      ok = false;
      return;
    }
    textBefore = child.isText;
    if (child.isText) return;
    for (const key in child.attrs) {
      const value: unknown = child.attrs[key];
      // A null attribute is not written; it reads back as its default, which must be null too.
      if (value === null) ok &&= nullByDefault(child, key);
      else if (typeof value !== 'string' && typeof value !== 'boolean' && typeof value !== 'number') ok = false;
    }
    ok &&= writable(child);
  });
  return ok;
}

function nullByDefault(node: Node, key: string): boolean {
  const spec = node.type.spec.attrs?.[key];
  return spec !== undefined && 'default' in spec && spec.default === null;
}

// The update format's item info bits (Yjs's Item.write) and content refs.
const bit8 = 0b1000_0000;
const bit6 = 0b0010_0000;
const refString = 4;
const refType = 7;
const refAny = 8;
// Yjs's type refs of Y.XmlElement and Y.XmlText (ContentType).
const xmlElementRef = 3;
const xmlTextRef = 6;
