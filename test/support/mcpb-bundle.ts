/**
 * A real MCPB bundle for tests: the fixture MCP server bundled into one file with esbuild (as publishers
 * ship it, dependencies inside) and packed by the official MCPB packer.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import { packExtension } from '@anthropic-ai/mcpb';
import { fixture } from './hub-harness.js';

export interface FixtureBundleOptions {
  /** The manifest's name (default `fixture-bundle`). */
  name?: string;
  /** The manifest's user_config (default: a `greeting` with a default, passed as FIXTURE_GREETING). */
  userConfig?: Record<string, unknown>;
  /** The manifest's version (default 1.0.0). */
  version?: string;
  /** The fixture server bundled (default fixture-server.mjs). */
  entry?: string;
  /** Arguments after the server file in mcp_config (may use `${user_config.*}`). */
  args?: string[];
  /** mcp_config's env (default FIXTURE_GREETING from the greeting setting). */
  env?: Record<string, string>;
}

/** The hex SHA-256 of a file's bytes (what a registry entry publishes as fileSha256). */
export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Builds and packs the fixture server as a bundle under `work`; the .mcpb file's bytes. */
export async function buildFixtureBundle(work: string, options: FixtureBundleOptions = {}): Promise<Buffer> {
  const name = options.name ?? 'fixture-bundle';
  const ext = join(work, `${name}-${options.version ?? '1.0.0'}-ext`);
  await mkdir(join(ext, 'server'), { recursive: true });
  await build({
    entryPoints: [fixture(options.entry ?? 'fixture-server.mjs')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: join(ext, 'server', 'index.mjs'),
    logLevel: 'silent',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  const manifest = {
    manifest_version: '0.3',
    name,
    display_name: 'Fixture bundle',
    version: options.version ?? '1.0.0',
    description: 'The fixture MCP server as an MCPB bundle.',
    author: { name: 'Spillway tests' },
    server: {
      type: 'node',
      entry_point: 'server/index.mjs',
      mcp_config: {
        command: 'node',
        args: ['${__dirname}/server/index.mjs', ...(options.args ?? [])],
        env: options.env ?? { FIXTURE_GREETING: '${user_config.greeting}' },
      },
    },
    user_config: options.userConfig ?? { greeting: { type: 'string', title: 'Greeting', description: 'Said hello with', default: 'hello' } },
  };
  await writeFile(join(ext, 'manifest.json'), JSON.stringify(manifest, null, 2));
  const packed = join(work, `${name}-${options.version ?? '1.0.0'}.mcpb`);
  if (!(await packExtension({ extensionPath: ext, outputPath: packed, silent: true }))) throw new Error(`could not pack ${name}`);
  return readFile(packed);
}
