import * as Y from 'yjs';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import { defaultShapeLimits, Malformed, readByte, skipAny, jsonProblem, type ShapeLimits, type ShapeProblem } from './update-values.ts';
import type { AnyYType } from '../../shared/model/doc-layout.ts';

export { defaultShapeLimits, type ShapeLimits, type ShapeProblem, type ShapeRule } from './update-values.ts';

/**
 * The shape of a Yjs update (SHAPE1–SHAPE3 in shared/PROTOCOL.md), read from its bytes (update
 * format v1, the one y-protocols' sync speaks) without recursion and without decoding anything
 * into a Y.Doc.
 *
 * Yjs reads the values of an update with lib0's `readAny`, which recurses once per level of an
 * array or object, and writes them back with `writeAny` and `JSON.stringify`, which recurse too;
 * shared types nested in shared types are read flat but turned into JSON, ProseMirror nodes or
 * Markdown by recursive code. A value 5,000 levels deep (10 KB) overflows a browser's stack, or
 * the server's when a load runs deep in a hook chain. So the nesting is measured here, with
 * explicit stacks, before Yjs reads anything.
 */
export interface ShapeReport {
  /**
   * The first problem of the update, or null. SHAPE4 (it does not decode) concerns the whole
   * update; the others concern the structs in `dropped`.
   */
  problem: ShapeProblem | null;
  /** How many structs break a rule, or lie under a shared type that does. */
  dropped: number;
  /** Whether an item depends on a struct neither the update nor the document holds (Yjs would keep it pending). */
  incomplete: boolean;
  /** The update without what breaks a rule; the update itself when nothing does; null when it does not decode. */
  readable(): Uint8Array | null;
}

/**
 * Reads the shape of `update` as if it were applied to `ydoc` next. `roots`: the names of the
 * top-level types allowed (SHAPE1), or null for any. The document is only read.
 */
export function inspectUpdate(update: Uint8Array, ydoc: Y.Doc, roots: ReadonlySet<string> | null, limits: ShapeLimits = defaultShapeLimits): ShapeReport {
  let parsed: Parsed;
  try {
    parsed = parse(update, limits);
  } catch (error) {
    const message = error instanceof Malformed ? error.message : 'The update does not decode.';
    return { problem: { rule: 'SHAPE4', message }, dropped: 0, incomplete: false, readable: () => null };
  }
  const placed = new Placement(parsed, ydoc);
  let problem: ShapeProblem | null = null;
  let dropped = 0;
  let incomplete = false;
  for (const group of parsed.groups) {
    const state = Y.getState(ydoc.store, group.client);
    for (const struct of group.structs) {
      if (struct.kind !== 'item') continue;
      if (struct.clock + struct.length <= state) {
        // Yjs skips what the document holds already, but reads its content first: content that
        // breaks a rule by itself is a problem there too (a stored state merged after the state
        // that left it out, an old replica sending it again).
        if (struct.problem === null) continue;
        struct.drop = 'whole';
        problem ??= struct.problem;
        dropped += 1;
        continue;
      }
      const place: Place = group.clock > state ? { kind: 'missing' } : placed.of(struct);
      // Only a shared type waiting for its parent could later nest deeper than was checked.
      if (place.kind === 'missing' && struct.isType) incomplete = true;
      const where = place.kind === 'placed' ? placeProblem(place, roots, limits) : place.kind === 'dropped' ? place.problem : null;
      const own = where ?? struct.problem;
      if (own === null) continue;
      struct.drop = where === null && place.kind === 'placed' ? 'content' : 'whole';
      problem ??= own;
      dropped += 1;
    }
  }
  return { problem, dropped, incomplete, readable: () => (dropped === 0 ? update : rewrite(update, parsed)) };
}

function placeProblem(place: Placed, roots: ReadonlySet<string> | null, limits: ShapeLimits): ShapeProblem | null {
  if (roots !== null && !roots.has(place.root)) return { rule: 'SHAPE1', message: `No top-level type "${place.root.slice(0, 40)}" belongs in this document.` };
  if (place.depth > limits.typeDepth) return { rule: 'SHAPE2', message: `Shared types may nest at most ${limits.typeDepth} levels deep.` };
  return null;
}

type Id = readonly [client: number, clock: number];

interface ParsedStruct {
  kind: 'gc' | 'skip' | 'item';
  client: number;
  clock: number;
  length: number;
  /** Byte offsets in the update: the info byte, the content, the end. */
  start: number;
  contentStart: number;
  end: number;
  origin: Id | null;
  rightOrigin: Id | null;
  parentKey: string | null;
  parentId: Id | null;
  isType: boolean;
  /** What the content itself breaks (a value too deep or too large, a subdocument), or null. */
  problem: ShapeProblem | null;
  /** Set by inspectUpdate: write the struct back as a deleted item ('content') or as garbage ('whole'). */
  drop?: 'content' | 'whole';
  /** Set by Placement: where the struct would be integrated, once found. */
  place: Place | null;
  /** Set by Placement: the number of the search that last walked through the struct (to find cycles). */
  seenBy: number;
}

interface ParsedGroup {
  client: number;
  clock: number;
  structs: ParsedStruct[];
}

interface Parsed {
  groups: ParsedGroup[];
  structs: ParsedStruct[];
  byClient: Map<number, ParsedStruct[]>;
  /** Where the delete set starts. */
  deleteSetStart: number;
}

const BIT6 = 0b0010_0000;
const BIT7 = 0b0100_0000;
const BIT8 = 0b1000_0000;
const BITS5 = 0b0001_1111;

function parse(update: Uint8Array, limits: ShapeLimits): Parsed {
  const decoder = decoding.createDecoder(update);
  const groups: ParsedGroup[] = [];
  const structs: ParsedStruct[] = [];
  const byClient = new Map<number, ParsedStruct[]>();
  const groupCount = decoding.readVarUint(decoder);
  for (let g = 0; g < groupCount; g++) {
    const count = decoding.readVarUint(decoder);
    const client = decoding.readVarUint(decoder);
    let clock = decoding.readVarUint(decoder);
    if (byClient.has(client)) throw new Malformed('The update names a client twice.');
    const group: ParsedGroup = { client, clock, structs: [] };
    groups.push(group);
    byClient.set(client, group.structs);
    for (let s = 0; s < count; s++) {
      const struct = readStruct(decoder, client, clock, limits);
      clock += struct.length;
      group.structs.push(struct);
      structs.push(struct);
    }
  }
  const deleteSetStart = decoder.pos;
  const clients = decoding.readVarUint(decoder);
  for (let c = 0; c < clients; c++) {
    decoding.readVarUint(decoder);
    const deletes = decoding.readVarUint(decoder);
    for (let d = 0; d < deletes; d++) {
      decoding.readVarUint(decoder);
      decoding.readVarUint(decoder);
    }
  }
  return { groups, structs, byClient, deleteSetStart };
}

function readStruct(decoder: decoding.Decoder, client: number, clock: number, limits: ShapeLimits): ParsedStruct {
  const start = decoder.pos;
  const info = readByte(decoder);
  const ref = info & BITS5;
  const struct: ParsedStruct = {
    kind: 'item', client, clock, length: 0, start, contentStart: start, end: start,
    origin: null, rightOrigin: null, parentKey: null, parentId: null, isType: false, problem: null, drop: undefined, place: null, seenBy: 0,
  };
  if (ref === 0 || ref === 10) {
    struct.kind = ref === 0 ? 'gc' : 'skip';
    struct.length = positive(decoding.readVarUint(decoder));
  } else {
    if (info & BIT8) struct.origin = readId(decoder);
    if (info & BIT7) struct.rightOrigin = readId(decoder);
    if ((info & (BIT7 | BIT8)) === 0) {
      if (decoding.readVarUint(decoder) === 1) struct.parentKey = decoding.readVarString(decoder);
      else struct.parentId = readId(decoder);
      if (info & BIT6) decoding.readVarString(decoder);
    }
    struct.contentStart = decoder.pos;
    readContent(decoder, ref, struct, limits);
  }
  struct.end = decoder.pos;
  return struct;
}

/** Reads one item's content, setting its length, whether it is a shared type, and what it breaks. */
function readContent(decoder: decoding.Decoder, ref: number, struct: ParsedStruct, limits: ShapeLimits): void {
  switch (ref) {
    case 1: // deleted
      struct.length = positive(decoding.readVarUint(decoder));
      return;
    case 2: { // JSON (legacy)
      const count = positive(decoding.readVarUint(decoder));
      for (let i = 0; i < count; i++) {
        const text = decoding.readVarString(decoder);
        if (text !== 'undefined') struct.problem ??= jsonProblem(text, limits);
      }
      struct.length = count;
      return;
    }
    case 3: // binary
      decoding.readVarUint8Array(decoder);
      struct.length = 1;
      return;
    case 4: // string
      struct.length = positive(decoding.readVarString(decoder).length);
      return;
    case 5: // embed
      struct.problem = jsonProblem(decoding.readVarString(decoder), limits);
      struct.length = 1;
      return;
    case 6: // format
      decoding.readVarString(decoder);
      struct.problem = jsonProblem(decoding.readVarString(decoder), limits);
      struct.length = 1;
      return;
    case 7: { // shared type
      const typeRef = decoding.readVarUint(decoder);
      if (typeRef > 6) throw new Malformed('The update holds a shared type Yjs does not know.');
      if (typeRef === 3 || typeRef === 5) decoding.readVarString(decoder);
      struct.isType = true;
      struct.length = 1;
      return;
    }
    case 8: { // any
      const count = positive(decoding.readVarUint(decoder));
      for (let i = 0; i < count; i++) struct.problem ??= skipAny(decoder, limits);
      struct.length = count;
      return;
    }
    case 9: // subdocument
      decoding.readVarString(decoder);
      skipAny(decoder, limits);
      struct.problem = { rule: 'SHAPE1', message: 'Documents hold no subdocuments.' };
      struct.length = 1;
      return;
    default:
      throw new Malformed('The update holds content Yjs does not know.');
  }
}

function readId(decoder: decoding.Decoder): Id {
  return [decoding.readVarUint(decoder), decoding.readVarUint(decoder)];
}

function positive(length: number): number {
  if (length < 1) throw new Malformed('The update holds an empty struct.');
  return length;
}

type Placed = { kind: 'placed'; root: string; depth: number };
/**
 * Where an item would be integrated: under the top-level type `root`, `depth` levels below it;
 * or as garbage (its neighbour or parent is garbage: Yjs drops it, whatever it holds); or nowhere,
 * as it names no shared type for its parent (or a cycle of them); or nowhere yet (something it
 * depends on is missing).
 */
type Place = Placed | { kind: 'garbage' } | { kind: 'dropped'; problem: ShapeProblem } | { kind: 'missing' };

const malformed: Place = { kind: 'dropped', problem: { rule: 'SHAPE4', message: 'An item names a parent that is no shared type.' } };
const garbage: Place = { kind: 'garbage' };
const missing: Place = { kind: 'missing' };

/** One step of a search for a place: the place itself, or the struct to read it from next (through its parent, or as its neighbour). */
type Step = { place: Place; next: null; viaParent: false } | { place: null; next: ParsedStruct; viaParent: boolean };

/**
 * Finds the place of every item without recursion: an item names its parent (a top-level
 * type's name, or the id of the item holding a shared type) or takes its neighbour's (origin,
 * else right origin), which may lie in the update or in the document.
 */
class Placement {
  private readonly typePlaces = new Map<AnyYType, Place>();
  private rootNames: Map<AnyYType, string> | null = null;
  /** The structs whose place is that of the next one (its neighbour), or under it (its parent): reused by every search. */
  private readonly chain: ParsedStruct[] = [];
  private readonly viaParent: boolean[] = [];
  private searches = 0;

  constructor(
    private readonly parsed: Parsed,
    private readonly ydoc: Y.Doc,
  ) {}

  // Each struct keeps its place once found, and a search that meets a struct placed before stops
  // there: placing every struct of an update is linear, without a map or set of its own.
  of(item: ParsedStruct): Place {
    if (item.place) return item.place;
    const search = ++this.searches;
    const chain = this.chain;
    const viaParent = this.viaParent;
    chain.length = 0;
    viaParent.length = 0;
    let current = item;
    let place: Place;
    for (;;) {
      const known = current.place;
      if (known) {
        place = known;
        break;
      }
      if (current.seenBy === search) {
        place = malformed;
        break;
      }
      current.seenBy = search;
      const step = this.step(current);
      if (step.next === null) {
        place = step.place;
        current.place = place;
        break;
      }
      chain.push(current);
      viaParent.push(step.viaParent);
      current = step.next;
    }
    let below = current;
    for (let i = chain.length - 1; i >= 0; i--) {
      const struct = chain[i];
      place = viaParent[i] ? this.childOf(below, place) : place;
      struct.place = place;
      below = struct;
    }
    return item.place ?? place;
  }

  /** The place of an item under the shared type the update's item `holder` holds. */
  private childOf(holder: ParsedStruct, holderPlace: Place): Place {
    if (holderPlace.kind !== 'placed') return holderPlace;
    if (!holder.isType) return malformed;
    return { kind: 'placed', root: holderPlace.root, depth: holderPlace.depth + 1 };
  }

  /** One step up: the place itself when it is found at once, else the update's struct to read it from. */
  private step(item: ParsedStruct): Step {
    if (item.kind !== 'item') return { place: garbage, next: null, viaParent: false };
    if (item.parentKey !== null) return { place: { kind: 'placed', root: item.parentKey, depth: 1 }, next: null, viaParent: false };
    // Yjs needs both neighbours, and takes the parent of the left one, else of the right one.
    const first = item.parentId ?? item.origin ?? item.rightOrigin;
    const second = item.parentId === null && item.origin !== null ? item.rightOrigin : null;
    if (first === null) return { place: malformed, next: null, viaParent: false };
    const from = this.find(first);
    if (from === null) return { place: missing, next: null, viaParent: false };
    if (from === 'gc') return { place: garbage, next: null, viaParent: false };
    if (second !== null) {
      const other = this.find(second);
      if (other === null) return { place: missing, next: null, viaParent: false };
      if (other === 'gc') return { place: garbage, next: null, viaParent: false };
    }
    if (!(from instanceof Y.Item)) return { place: null, next: from, viaParent: item.parentId !== null };
    if (item.parentId && !(from.content instanceof Y.ContentType)) return { place: malformed, next: null, viaParent: false };
    const parent: unknown = item.parentId ? (from.content as Y.ContentType).type : from.parent;
    return { place: parent instanceof Y.AbstractType ? this.typePlace(parent) : garbage, next: null, viaParent: false };
  }

  /** The struct holding `id`: the update's, else the document's item; 'gc' for garbage; null when neither holds it. */
  private find([client, clock]: Id): ParsedStruct | Y.Item | 'gc' | null {
    // What the document holds wins: Yjs skips the update's copy of it.
    const structs = this.ydoc.store.clients.get(client);
    if (structs !== undefined && clock < Y.getState(this.ydoc.store, client)) {
      const struct = structs[Y.findIndexSS(structs, clock)];
      return struct instanceof Y.Item ? struct : 'gc';
    }
    const own = this.parsed.byClient.get(client);
    if (!own || own.length === 0 || clock < own[0].clock) return null;
    const last = own[own.length - 1];
    if (clock >= last.clock + last.length) return null;
    let low = 0;
    let high = own.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (own[mid].clock <= clock) low = mid;
      else high = mid - 1;
    }
    const struct = own[low];
    return struct.kind === 'item' ? struct : struct.kind === 'gc' ? 'gc' : null;
  }

  /** The place of a shared type of the document (its items' depth is one more), walking up its parents. */
  private typePlace(type: AnyYType): Place {
    const known = this.typePlaces.get(type);
    if (known) return known;
    let depth = 1;
    let top: AnyYType = type;
    while (top._item !== null) {
      const parent: unknown = top._item.parent;
      if (!(parent instanceof Y.AbstractType)) return { kind: 'garbage' };
      top = parent;
      depth += 1;
    }
    this.rootNames ??= new Map([...this.ydoc.share].map(([name, root]) => [root, name]));
    const root = this.rootNames.get(top);
    const place: Place = root === undefined ? { kind: 'garbage' } : { kind: 'placed', root, depth };
    this.typePlaces.set(type, place);
    return place;
  }
}

/**
 * The update with each struct that breaks a rule written back as a deleted item of the same
 * length and place (its content alone broke a rule), or as garbage (its place did): the clocks
 * stay whole, so everything after it still applies.
 */
function rewrite(update: Uint8Array, parsed: Parsed): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, parsed.groups.length);
  for (const group of parsed.groups) {
    encoding.writeVarUint(encoder, group.structs.length);
    encoding.writeVarUint(encoder, group.client);
    encoding.writeVarUint(encoder, group.clock);
    for (const struct of group.structs) {
      if (struct.drop === undefined) encoding.writeUint8Array(encoder, update.subarray(struct.start, struct.end));
      else if (struct.drop === 'whole') {
        encoding.writeUint8(encoder, 0);
        encoding.writeVarUint(encoder, struct.length);
      } else {
        encoding.writeUint8(encoder, (update[struct.start] & ~BITS5) | 1);
        encoding.writeUint8Array(encoder, update.subarray(struct.start + 1, struct.contentStart));
        encoding.writeVarUint(encoder, struct.length);
      }
    }
  }
  encoding.writeUint8Array(encoder, update.subarray(parsed.deleteSetStart));
  return encoding.toUint8Array(encoder);
}
