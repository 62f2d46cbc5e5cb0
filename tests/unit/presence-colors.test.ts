import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { colorAmong, colorAt, palette, preferredColor } from '../../client/presence-colors.ts';
import { isPresenceColor } from '../../shared/protocol/presence.ts';

/** The colours the rule settles on for people present in the order given (each yields to those before). */
function settle(subjects: string[]): string[] {
  const colors: string[] = [];
  for (const subject of subjects) colors.push(colorAmong(subject, colors));
  return colors;
}

describe('the colours of the people present', () => {
  it('[PRES7] gives a person their preferred colour, the same every time, when nobody before them holds it', () => {
    expect(colorAmong('alice', [])).toBe(preferredColor('alice'));
    expect(preferredColor('alice')).toBe(preferredColor('alice'));
    expect(colorAmong('alice', ['#000000'])).toBe(preferredColor('alice'));
  });

  it('[PRES7] never gives two people present the same colour, however many and whatever their subjects', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 40 }), (subjects) => {
        const colors = settle(subjects);
        expect(new Set(colors).size).toBe(colors.length);
        for (const color of colors) expect(isPresenceColor(color)).toBe(true);
      }),
    );
  });

  it('[PRES7] moves the later of two people who prefer the same colour to another one', () => {
    const first = 'alice';
    const clash = Array.from({ length: 200 }, (_, i) => `p${i}`).find((subject) => preferredColor(subject) === preferredColor(first))!;
    const [a, b] = settle([first, clash]);
    expect(a).toBe(preferredColor(first));
    expect(b).not.toBe(a);
  });

  it('keeps going past the palette with valid colours of its own', () => {
    const beyond = Array.from({ length: 30 }, (_, i) => colorAt(palette.length + i));
    expect(new Set([...palette, ...beyond]).size).toBe(palette.length + 30);
    for (const color of beyond) expect(isPresenceColor(color)).toBe(true);
  });
});
