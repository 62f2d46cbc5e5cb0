import * as decoding from 'lib0/decoding';

/**
 * The limits and the values of an update's shape (SHAPE2, SHAPE3 in shared/PROTOCOL.md): how
 * deep and how large one value may be, measured on its bytes with an explicit stack (lib0's
 * `readAny` recurses once per level). server/sync/update-shape.ts reads the structs around them.
 */
export interface ShapeLimits {
  /** SHAPE2: how many levels below its top-level type an item may lie (an item of the top-level type: 1). */
  typeDepth: number;
  /** SHAPE2: how deeply arrays and objects may nest in one value (`[]`: 1, `[[]]`: 2). */
  valueDepth: number;
  /** SHAPE3: how many array elements and object keys one value may hold in all. */
  valueEntries: number;
}

export const defaultShapeLimits: ShapeLimits = { typeDepth: 64, valueDepth: 32, valueEntries: 100_000 };

export type ShapeRule = 'SHAPE1' | 'SHAPE2' | 'SHAPE3' | 'SHAPE4';

export interface ShapeProblem {
  rule: ShapeRule;
  message: string;
}

/** The update does not decode (SHAPE4). */
export class Malformed extends Error {}

/**
 * Reads past one `writeAny` value with an explicit stack, so any depth is read; returns what
 * it breaks, or null. The whole value is read even when it breaks a limit, to find the next.
 */
export function skipAny(decoder: decoding.Decoder, limits: ShapeLimits): ShapeProblem | null {
  // Per open array or object: how many values it has left, and whether a key precedes each.
  const left: number[] = [1];
  const keyed: boolean[] = [false];
  let entries = 0;
  let deepest = 0;
  while (left.length > 0) {
    const top = left.length - 1;
    if (left[top] === 0) {
      left.pop();
      keyed.pop();
      continue;
    }
    left[top] -= 1;
    if (keyed[top]) decoding.readVarUint8Array(decoder);
    const type = readByte(decoder);
    switch (type) {
      case 127: case 126: case 121: case 120:
        break;
      case 125:
        decoding.readVarInt(decoder);
        break;
      case 124:
        decoding.readFloat32(decoder);
        break;
      case 123:
        decoding.readFloat64(decoder);
        break;
      case 122:
        decoding.readBigInt64(decoder);
        break;
      case 119: case 116:
        decoding.readVarUint8Array(decoder);
        break;
      case 118: case 117: {
        const count = decoding.readVarUint(decoder);
        // Every entry takes at least a byte: a count beyond the update is a lie.
        if (count > decoder.arr.length - decoder.pos) throw new Malformed('A value claims more entries than the update holds.');
        entries += count;
        left.push(count);
        keyed.push(type === 118);
        deepest = Math.max(deepest, left.length - 1);
        break;
      }
      default:
        throw new Malformed('A value of the update does not decode.');
    }
  }
  return valueProblem(deepest, entries, limits);
}

/** What a JSON text (legacy content, embeds, formats) breaks, counted without parsing; or null. */
export function jsonProblem(text: string, limits: ShapeLimits): ShapeProblem | null {
  let depth = 0;
  let deepest = 0;
  let entries = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c) i += 1;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      depth += 1;
      entries += 1;
      deepest = Math.max(deepest, depth);
    } else if (char === 0x5d || char === 0x7d) depth -= 1;
    else if (char === 0x2c) entries += 1;
  }
  const problem = valueProblem(deepest, entries, limits);
  if (problem) return problem;
  try {
    // JSON.parse is iterative in V8; the depth is bounded now, so Yjs's JSON.stringify is safe too.
    JSON.parse(text);
  } catch {
    throw new Malformed('A JSON value of the update does not parse.');
  }
  return null;
}

function valueProblem(depth: number, entries: number, limits: ShapeLimits): ShapeProblem | null {
  if (depth > limits.valueDepth) return { rule: 'SHAPE2', message: `Values may nest at most ${limits.valueDepth} levels deep.` };
  if (entries > limits.valueEntries) return { rule: 'SHAPE3', message: `A value may hold at most ${limits.valueEntries} entries.` };
  return null;
}

export function readByte(decoder: decoding.Decoder): number {
  if (decoder.pos >= decoder.arr.length) throw new Malformed('The update ends too early.');
  return decoding.readUint8(decoder);
}
