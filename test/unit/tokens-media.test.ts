import { describe, expect, it } from 'vitest';
import { audioTokens, base64DecodedBytes, IMAGE_MAX_TOKENS, imageTokens, readImageSize } from '../../electron/core/tokens/media-tokens.js';

/** A PNG signature and IHDR chunk: enough for the size, as real encoders write it. */
export function pngHeader(width: number, height: number): Buffer {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'ascii');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  b[24] = 8;
  b[25] = 6;
  return b;
}

/** SOI, an APP0 segment, then SOF0 with the size. */
function jpegHeader(width: number, height: number): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, ...Buffer.from('JFIF\0'), 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const sof = Buffer.alloc(19);
  sof.writeUInt16BE(0xffc0, 0);
  sof.writeUInt16BE(17, 2);
  sof[4] = 8;
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof]);
}

function gifHeader(width: number, height: number): Buffer {
  const b = Buffer.alloc(13);
  b.write('GIF89a', 0, 'ascii');
  b.writeUInt16LE(width, 6);
  b.writeUInt16LE(height, 8);
  return b;
}

describe('media tokens', () => {
  it.each([
    ['png', pngHeader(640, 480), { width: 640, height: 480 }],
    ['jpeg', jpegHeader(1024, 768), { width: 1024, height: 768 }],
    ['gif', gifHeader(32, 16), { width: 32, height: 16 }],
    ['garbage', Buffer.from('not an image at all'), null],
    ['empty', Buffer.alloc(0), null],
  ])('reads the size of a %s header', (_kind, bytes, size) => {
    expect(readImageSize(bytes)).toEqual(size);
  });

  it('costs an image (w*h)/750 tokens, capped, and the cap when the size is unknown', () => {
    expect(imageTokens(pngHeader(640, 480).toString('base64'))).toBe(Math.ceil((640 * 480) / 750));
    expect(imageTokens(pngHeader(100, 100).toString('base64'))).toBe(14);
    expect(imageTokens(pngHeader(4000, 3000).toString('base64'))).toBe(IMAGE_MAX_TOKENS);
    expect(imageTokens(Buffer.from('???').toString('base64'))).toBe(IMAGE_MAX_TOKENS);
  });

  it('costs audio by its decoded size', () => {
    const base64 = Buffer.alloc(16_000).toString('base64');
    expect(base64DecodedBytes(base64)).toBe(16_000);
    expect(audioTokens(base64)).toBe(10);
    expect(base64DecodedBytes(Buffer.from('ab').toString('base64'))).toBe(2);
  });
});
