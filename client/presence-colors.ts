/**
 * PRES7: the colours of the people present. Each person prefers one colour, derived from their
 * token's subject (the same on every device and visit); where two present people would share
 * one, the one who joined the awareness later (the larger client id) takes the first colour
 * after their preferred one that nobody before them holds. Every client applies the same rule
 * to what it sees, so the colours settle with no two present people sharing one.
 */

/** Distinct, readable on white, `#rrggbb` (y-prosemirror accepts no other form). */
export const palette = [
  '#c2185b', '#1565c0', '#2e7d32', '#6a1b9a', '#ad5700', '#00838f',
  '#b71c1c', '#4527a0', '#558b2f', '#0277bd', '#6d4c41', '#ad1457',
] as const;

/** The `index`-th colour of the sequence: the palette, then further hues spread around the wheel. */
export function colorAt(index: number): string {
  if (index < palette.length) return palette[index];
  const hue = ((index - palette.length) * 137.508) % 360;
  return hslToHex(hue, 0.65, 0.38);
}

/** Where in the sequence a subject's preferred colour is: a stable hash of the subject over the palette. */
export function preferredIndex(subject: string): number {
  let hash = 2166136261;
  for (let i = 0; i < subject.length; i++) hash = Math.imul(hash ^ subject.charCodeAt(i), 16777619);
  return (hash >>> 0) % palette.length;
}

export function preferredColor(subject: string): string {
  return colorAt(preferredIndex(subject));
}

/**
 * The colour for the person of `subject` given the colours of the present people who came
 * before them: the preferred colour unless one of them holds it, else the next colour none of
 * them holds.
 */
export function colorAmong(subject: string, heldBefore: Iterable<string>): string {
  const held = new Set([...heldBefore].map((color) => color.toLowerCase()));
  for (let step = 0; ; step++) {
    const index = step < palette.length ? (preferredIndex(subject) + step) % palette.length : step;
    const color = colorAt(index);
    if (!held.has(color)) return color;
  }
}

function hslToHex(hue: number, saturation: number, lightness: number): string {
  const a = saturation * Math.min(lightness, 1 - lightness);
  const channel = (n: number) => {
    const k = (n + hue / 30) % 12;
    const value = lightness - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(value * 255).toString(16).padStart(2, '0');
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}
