/**
 * Token cost of image and audio content blocks, which are not tokenized as text (issue 4).
 *
 * Images: `ceil(width * height / 750)` — the rule Anthropic documents for vision input — capped at
 * IMAGE_MAX_TOKENS, because clients downscale large images (long edge ~1568 px, ~1.15 MP) before sending.
 * The dimensions are read from the PNG, JPEG, GIF or WebP header; when they cannot be read the cost is
 * the cap (a flat, deliberately pessimistic figure).
 *
 * Audio: by decoded size, one token per AUDIO_BYTES_PER_TOKEN bytes — about 10 tokens per second of
 * 128 kbit/s audio, the order of magnitude speech models bill for.
 */

export const IMAGE_MAX_TOKENS = 1_600;
export const IMAGE_PIXELS_PER_TOKEN = 750;
export const AUDIO_BYTES_PER_TOKEN = 1_600;

/** Only this much base64 is decoded to find the dimensions (JPEG EXIF blocks sit before the size). */
const HEADER_BASE64_CHARS = 256 * 1024;

export interface ImageSize {
  width: number;
  height: number;
}

/** Decoded byte length of a base64 string without decoding it. */
export function base64DecodedBytes(base64: string): number {
  const len = base64.length;
  if (len === 0) return 0;
  let padding = 0;
  if (base64.endsWith('==')) padding = 2;
  else if (base64.endsWith('=')) padding = 1;
  return Math.max(0, Math.floor((len * 3) / 4) - padding);
}

/** Width and height from a PNG, JPEG, GIF or WebP header; null when the format is not recognised. */
export function readImageSize(bytes: Uint8Array): ImageSize | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = (i: number): number => bytes[i] ?? 0;
  // PNG: signature, then the IHDR chunk with big-endian width and height.
  if (bytes.length >= 24 && at(0) === 0x89 && at(1) === 0x50 && at(2) === 0x4e && at(3) === 0x47) {
    return sized(view.getUint32(16), view.getUint32(20));
  }
  // GIF: "GIF8", then little-endian width and height.
  if (bytes.length >= 10 && at(0) === 0x47 && at(1) === 0x49 && at(2) === 0x46 && at(3) === 0x38) {
    return sized(view.getUint16(6, true), view.getUint16(8, true));
  }
  // WebP: "RIFF" .... "WEBP" and one of three chunk kinds.
  if (bytes.length >= 30 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') {
    const kind = ascii(bytes, 12, 16);
    if (kind === 'VP8X') return sized(1 + (at(24) | (at(25) << 8) | (at(26) << 16)), 1 + (at(27) | (at(28) << 8) | (at(29) << 16)));
    if (kind === 'VP8L') {
      const b = view.getUint32(21, true);
      return sized((b & 0x3fff) + 1, ((b >> 14) & 0x3fff) + 1);
    }
    if (kind === 'VP8 ') return sized(view.getUint16(26, true) & 0x3fff, view.getUint16(28, true) & 0x3fff);
    return null;
  }
  // JPEG: walk the markers to the first start-of-frame.
  if (bytes.length >= 4 && at(0) === 0xff && at(1) === 0xd8) {
    let i = 2;
    while (i + 9 < bytes.length) {
      if (at(i) !== 0xff) return null;
      const marker = at(i + 1);
      if (marker === 0xff) {
        i += 1;
        continue;
      }
      const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
      if (isFrame) return sized(view.getUint16(i + 7), view.getUint16(i + 5));
      i += 2 + view.getUint16(i + 2);
    }
  }
  return null;
}

/** Tokens an image costs the model, by the rule in this file's header. */
export function imageTokens(base64: string): number {
  const head = Buffer.from(base64.slice(0, HEADER_BASE64_CHARS - (HEADER_BASE64_CHARS % 4)), 'base64');
  const size = readImageSize(head);
  if (!size) return IMAGE_MAX_TOKENS;
  return Math.min(IMAGE_MAX_TOKENS, Math.max(1, Math.ceil((size.width * size.height) / IMAGE_PIXELS_PER_TOKEN)));
}

/** Tokens an audio clip costs the model, by the rule in this file's header. */
export function audioTokens(base64: string): number {
  return Math.max(1, Math.ceil(base64DecodedBytes(base64) / AUDIO_BYTES_PER_TOKEN));
}

function sized(width: number, height: number): ImageSize | null {
  return width > 0 && height > 0 ? { width, height } : null;
}

function ascii(bytes: Uint8Array, from: number, to: number): string {
  return String.fromCharCode(...bytes.subarray(from, to));
}

/**
 * The tokens one binary block costs the model: an image or audio by the rules above; a blob resource, if
 * it reaches the model at all, as its base64 text (about 4 characters a token).
 */
export function binaryTokens(kind: 'image' | 'audio' | 'blob', base64: string): number {
  if (kind === 'image') return imageTokens(base64);
  return kind === 'audio' ? audioTokens(base64) : Math.ceil(base64.length / 4);
}
