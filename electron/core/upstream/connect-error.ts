/** How a failed connect reads in a server's status. */
import type { ServerConfig } from '../../../shared/config.js';
import { notFoundMessage, UpstreamStartError } from './stdio-transport.js';

/** One readable sentence for a failed connect. */
export function describeConnectError(err: unknown, config: ServerConfig): string {
  const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = e?.code ?? e?.cause?.code;
  const msg = e instanceof Error ? e.message : String(err);
  if (e instanceof UpstreamStartError) return msg;
  if (code === 'ENOENT' && config.type === 'stdio') {
    return notFoundMessage(config.command);
  }
  if (code === 'ECONNREFUSED' || /ECONNREFUSED|fetch failed/.test(msg)) {
    return config.type === 'stdio' ? msg : `cannot reach ${config.url} (connection refused)`;
  }
  if (/Request timed out|timed out/i.test(msg)) return `no answer to initialize within the time limit (${msg})`;
  return msg.replace(/^MCP error -?\d+: /, '');
}
