/** A valid 4×3 PNG (red pixels), 73 bytes: what an upload test sends as an image. */
export const tinyPng = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmRAAAAEElEQVR4nGM4oaEBRww4OQAHpg0hlLAT/AAAAABJRU5ErkJggg=='),
  (char) => char.charCodeAt(0),
);

/** Bytes that claim to be a PNG by name and Content-Type but are HTML. */
export const htmlAsPng = new TextEncoder().encode('<!doctype html><script>alert(1)</script>');

export const svgImage = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="1" height="1"/></svg>');
