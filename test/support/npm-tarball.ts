/**
 * Crafted npm packages for the install tests: a gzipped tar of `package/<file>` entries (npm's tarball
 * layout), and the package document ("packument") an npm registry answers for it — so a test's own
 * small HTTP server can play an npm registry that sends exactly what the test needs, lies included.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';

/** One ustar header block for a regular file. */
function tarHeader(name: string, size: number): Buffer {
  const header = Buffer.alloc(512);
  const field = (offset: number, length: number, value: string) => header.write(value, offset, length, 'ascii');
  const octal = (offset: number, length: number, value: number) => field(offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
  field(0, 100, name);
  octal(100, 8, 0o644);
  octal(108, 8, 0);
  octal(116, 8, 0);
  octal(124, 12, size);
  octal(136, 12, 0);
  header.fill(' ', 148, 156); // the checksum counts its own field as spaces
  field(156, 1, '0');
  field(257, 6, 'ustar\0');
  field(263, 2, '00');
  let sum = 0;
  for (const byte of header) sum += byte;
  field(148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return header;
}

/** A package tarball: each file under `package/`. */
export function npmTarball(files: Record<string, string>): Buffer {
  const blocks: Buffer[] = [];
  for (const [name, text] of Object.entries(files)) {
    const data = Buffer.from(text);
    blocks.push(tarHeader(`package/${name}`, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

/** The `dist.integrity` npm checks a tarball against. */
export const integrityOf = (tarball: Buffer) => `sha512-${createHash('sha512').update(tarball).digest('base64')}`;

export interface PublishedVersion {
  /** The version the registry lists (the tarball's package.json may claim another). */
  version: string;
  tarball: Buffer;
  tarballUrl: string;
  bin?: Record<string, string>;
}

/** The package document of `name` with these versions, `latest` the dist-tag. */
export function packument(name: string, versions: PublishedVersion[], latest: string) {
  return {
    name,
    'dist-tags': { latest },
    versions: Object.fromEntries(
      versions.map((v) => [
        v.version,
        { name, version: v.version, ...(v.bin ? { bin: v.bin } : {}), dist: { tarball: v.tarballUrl, integrity: integrityOf(v.tarball) } },
      ]),
    ),
  };
}
