/**
 * The core as built (dist/, what `spillway serve` runs), for the parts the bench drives in process: the
 * token counter and the linear stdio transport. Loading the TypeScript sources through tsx instead would
 * time a different build, and tsx's name-keeping helpers break code that runs from its own source text
 * (the tokenizer worker).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './relays.js';

type TokenCounterModule = typeof import('../../electron/core/tokens/token-counter.js');
type StdioTransportModule = typeof import('../../electron/core/upstream/stdio-transport.js');

const built = (path: string) => pathToFileURL(join(ROOT, 'dist', path)).href;

export async function builtTokenCounter(): Promise<TokenCounterModule['TokenCounter']> {
  const module = (await import(built('electron/core/tokens/token-counter.js'))) as TokenCounterModule;
  return module.TokenCounter;
}

export async function builtStdioTransport(): Promise<StdioTransportModule['StdioUpstreamTransport']> {
  const module = (await import(built('electron/core/upstream/stdio-transport.js'))) as StdioTransportModule;
  return module.StdioUpstreamTransport;
}
