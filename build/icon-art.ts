/**
 * Spillway's icon, drawn from one vector description at any size: three strokes of water, each shorter
 * than the one above (a big result let through as a small one), on a blue rounded square for the app
 * icon, alone for the menu-bar template. Rasterized with 4x4 supersampling and written as RGBA PNG with
 * node:zlib — no image tools, no network. `make-icons.ts` writes every file; a test re-renders them and
 * compares with the committed PNGs.
 */
import { deflateSync, inflateSync } from 'node:zlib';

export type Rgba = readonly [number, number, number, number];

/** A shape in unit coordinates (0..1, y down) and how it paints. */
interface Layer {
  inside(x: number, y: number): boolean;
  color(x: number, y: number): Rgba;
}

// ── geometry ───────────────────────────────────────────────────────────────────────────────────
function roundedSquare(inset: number, radius: number) {
  const lo = inset;
  const hi = 1 - inset;
  return (x: number, y: number) => {
    if (x < lo || x > hi || y < lo || y > hi) return false;
    const cx = Math.min(Math.max(x, lo + radius), hi - radius);
    const cy = Math.min(Math.max(y, lo + radius), hi - radius);
    return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2;
  };
}

/** A wavy stroke with round caps: y = baseY + amp·sin(...) for x in [x0, x1], half-width `half`. */
function waveStroke(x0: number, x1: number, baseY: number, amp: number, half: number) {
  const k = (2 * Math.PI) / 0.3;
  const wave = (x: number) => baseY + amp * Math.sin((x - x0) * k);
  const slope = (x: number) => amp * k * Math.cos((x - x0) * k);
  return (x: number, y: number) => {
    if (x >= x0 && x <= x1) {
      // First-order distance to the curve: vertical offset scaled by the slope, so the stroke keeps its
      // width on the slopes and meets the round caps without a notch.
      const d = Math.abs(y - wave(x)) / Math.sqrt(1 + slope(x) ** 2);
      if (d <= half) return true;
    }
    const ends = [x0, x1];
    return ends.some((ex) => (x - ex) ** 2 + (y - wave(ex)) ** 2 <= half ** 2);
  };
}

function disc(cx: number, cy: number, r: number) {
  return (x: number, y: number) => (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

function pauseBars(cx: number, cy: number, h: number, w: number, gap: number) {
  return (x: number, y: number) =>
    Math.abs(y - cy) <= h / 2 && (Math.abs(x - (cx - gap / 2 - w / 2)) <= w / 2 || Math.abs(x - (cx + gap / 2 + w / 2)) <= w / 2);
}

/** The glyph: three strokes, 100%, 75% and 45% long. `bold` thickens them for 16-32 px tray sizes. */
function glyph(bold: boolean, area: { x0: number; x1: number; y0: number; y1: number }) {
  const width = area.x1 - area.x0;
  const step = (area.y1 - area.y0) / 2;
  const half = bold ? step * 0.3 : step * 0.22;
  const amp = bold ? step * 0.12 : step * 0.16;
  const strokes = [1, 0.75, 0.45].map((len, i) => waveStroke(area.x0, area.x0 + width * len, area.y0 + i * step, amp, half));
  return (x: number, y: number) => strokes.some((s) => s(x, y));
}

const solid = (c: Rgba) => () => c;

// ── the images ─────────────────────────────────────────────────────────────────────────────────
export type IconVariant = 'app' | 'tray' | 'tray-paused' | 'tray-error' | 'template' | 'template-paused' | 'template-error';

const BLUE_TOP: Rgba = [59, 130, 246, 255];
const BLUE_BOTTOM: Rgba = [29, 78, 216, 255];
const GREY: Rgba = [107, 114, 128, 255];
const WHITE: Rgba = [255, 255, 255, 255];
const RED: Rgba = [220, 38, 38, 255];
const BLACK: Rgba = [0, 0, 0, 255];
const CLEAR: Rgba = [0, 0, 0, 0];

function gradient(top: Rgba, bottom: Rgba) {
  return (_x: number, y: number): Rgba => [0, 1, 2, 3].map((i) => Math.round(top[i] + (bottom[i] - top[i]) * y)) as unknown as Rgba;
}

function layersFor(variant: IconVariant): Layer[] {
  const badge = disc(0.78, 0.78, 0.22);
  const badgeRing = disc(0.78, 0.78, 0.3);
  switch (variant) {
    case 'app':
      return [
        { inside: roundedSquare(0.06, 0.2), color: gradient(BLUE_TOP, BLUE_BOTTOM) },
        { inside: glyph(false, { x0: 0.24, x1: 0.76, y0: 0.34, y1: 0.68 }), color: solid(WHITE) },
      ];
    case 'tray':
    case 'tray-paused':
    case 'tray-error': {
      const layers: Layer[] = [
        { inside: roundedSquare(0.03, 0.22), color: variant === 'tray-paused' ? solid(GREY) : gradient(BLUE_TOP, BLUE_BOTTOM) },
        { inside: glyph(true, { x0: 0.2, x1: 0.8, y0: 0.3, y1: 0.7 }), color: solid(WHITE) },
      ];
      if (variant === 'tray-error') {
        layers.push({ inside: badgeRing, color: solid(WHITE) }, { inside: badge, color: solid(RED) });
      }
      return layers;
    }
    case 'template':
      return [{ inside: glyph(true, { x0: 0.12, x1: 0.88, y0: 0.28, y1: 0.72 }), color: solid(BLACK) }];
    case 'template-paused':
      return [
        { inside: glyph(true, { x0: 0.08, x1: 0.62, y0: 0.28, y1: 0.72 }), color: solid(BLACK) },
        { inside: pauseBars(0.82, 0.5, 0.5, 0.09, 0.08), color: solid(BLACK) },
      ];
    case 'template-error':
      // Template images are one colour: the badge is cut out of the glyph and drawn solid.
      return [
        { inside: glyph(true, { x0: 0.12, x1: 0.88, y0: 0.28, y1: 0.72 }), color: solid(BLACK) },
        { inside: badgeRing, color: solid(CLEAR) },
        { inside: badge, color: solid(BLACK) },
      ];
  }
}

/** Renders one variant at `size`×`size` as straight (non-premultiplied) RGBA bytes. */
export function renderIcon(variant: IconVariant, size: number): Uint8Array {
  const layers = layersFor(variant);
  const out = new Uint8Array(size * size * 4);
  const n = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0, g = 0, b = 0, a = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const x = (px + (sx + 0.5) / n) / size;
          const y = (py + (sy + 0.5) / n) / size;
          // Paint layers in order; a fully transparent colour erases (used for the template badge ring).
          let c: Rgba = CLEAR;
          for (const layer of layers) if (layer.inside(x, y)) c = layer.color(x, y);
          const alpha = c[3] / 255;
          r += c[0] * alpha;
          g += c[1] * alpha;
          b += c[2] * alpha;
          a += alpha;
        }
      }
      const i = (py * size + px) * 4;
      if (a > 0) {
        out[i] = Math.round(r / a);
        out[i + 1] = Math.round(g / a);
        out[i + 2] = Math.round(b / a);
      }
      out[i + 3] = Math.round((a / (n * n)) * 255);
    }
  }
  return out;
}

// ── PNG ────────────────────────────────────────────────────────────────────────────────────────
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Encodes RGBA bytes as an 8-bit RGBA PNG (filter 0 on every row). */
export function encodePng(rgba: Uint8Array, width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type: RGBA
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0;
    Buffer.from(rgba.buffer, rgba.byteOffset + y * width * 4, width * 4).copy(raw, y * (width * 4 + 1) + 1);
  }
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', new Uint8Array())]);
}

/** Decodes what encodePng writes (8-bit RGBA, filter 0) — enough for the tests to compare pixels. */
export function decodePng(png: Buffer): { width: number; height: number; rgba: Uint8Array } {
  if (!png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('not a PNG');
  let offset = 8;
  let width = 0;
  let height = 0;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('ascii', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (crc32(png.subarray(offset + 4, offset + 8 + length)) !== png.readUInt32BE(offset + 8 + length)) throw new Error(`bad CRC in ${type}`);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[9] !== 6) throw new Error('only 8-bit RGBA is supported');
    } else if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    if (raw[y * (width * 4 + 1)] !== 0) throw new Error('only filter 0 is supported');
    rgba.set(raw.subarray(y * (width * 4 + 1) + 1, (y + 1) * (width * 4 + 1)), y * width * 4);
  }
  return { width, height, rgba };
}

/** Every icon file the app ships, relative to the project root. */
export const ICON_FILES: readonly { file: string; variant: IconVariant; size: number }[] = [
  // Packaging: electron-builder makes .icns / .ico / the Linux set from this one 1024 px image.
  { file: 'build/icon.png', variant: 'app', size: 1024 },
  // Runtime: window icon on Linux, tray icons per state (@2x for HiDPI).
  { file: 'electron/assets/icon.png', variant: 'app', size: 256 },
  { file: 'electron/assets/tray.png', variant: 'tray', size: 16 },
  { file: 'electron/assets/tray@2x.png', variant: 'tray', size: 32 },
  { file: 'electron/assets/tray-paused.png', variant: 'tray-paused', size: 16 },
  { file: 'electron/assets/tray-paused@2x.png', variant: 'tray-paused', size: 32 },
  { file: 'electron/assets/tray-error.png', variant: 'tray-error', size: 16 },
  { file: 'electron/assets/tray-error@2x.png', variant: 'tray-error', size: 32 },
  { file: 'electron/assets/trayTemplate.png', variant: 'template', size: 16 },
  { file: 'electron/assets/trayTemplate@2x.png', variant: 'template', size: 32 },
  { file: 'electron/assets/trayPausedTemplate.png', variant: 'template-paused', size: 16 },
  { file: 'electron/assets/trayPausedTemplate@2x.png', variant: 'template-paused', size: 32 },
  { file: 'electron/assets/trayErrorTemplate.png', variant: 'template-error', size: 16 },
  { file: 'electron/assets/trayErrorTemplate@2x.png', variant: 'template-error', size: 32 },
];
