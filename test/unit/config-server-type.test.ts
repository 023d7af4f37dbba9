/**
 * A server in config.json without "type", or with a kind Spillway does not know: the message says what to
 * write, and for a server without one, which kind its "command" or "url" points to.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, ServerConfigSchema, describeZodError, parseConfig } from '../../shared/config.js';

function problem(server: unknown): string {
  try {
    parseConfig(JSON.stringify({ version: 1, servers: { x: server } }), '/home/u/.config/Spillway/config.json');
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).field).toBe('servers.x.type');
    return (err as Error).message;
  }
  throw new Error('the config was accepted');
}

describe('a server without a usable "type" in config.json', () => {
  it('with a command: add "type": "stdio"', () => {
    const message = problem({ command: 'node' });
    expect(message).toBe(
      'Invalid config in /home/u/.config/Spillway/config.json, at servers.x.type: The kind of server is not set: add "type": "stdio", as it has a "command".',
    );
  });

  it('with a url: add "type": "http" (or "sse")', () => {
    expect(problem({ url: 'https://mcp.example.com/mcp' })).toMatch(
      /The kind of server is not set: add "type": "http", as it has a "url" \(use "sse" for/,
    );
  });

  it('with a url ending in /sse: add "type": "sse"', () => {
    expect(problem({ url: 'https://mcp.example.com/sse' })).toContain('add "type": "sse", as it has a "url" ending in /sse.');
  });

  it('with neither: set "type" to one of the three', () => {
    expect(problem({ enabled: false })).toContain('The kind of server is not set: set "type" to "stdio", "http" or "sse".');
  });

  it('with a kind it does not know: names it and the three it takes', () => {
    expect(problem({ type: 'htp', url: 'http://a' })).toContain(
      'The kind of server "htp" is not one Spillway knows: set "type" to "stdio", "http" or "sse".',
    );
  });

  it('never says there is a value that fits none of the forms', () => {
    for (const server of [{ command: 'node' }, { type: 'htp' }, { type: 5 }]) expect(problem(server)).not.toMatch(/fits none/);
  });
});

describe('a server without "type" from the API or a window', () => {
  it('says to set "type" (the parse there does not report the input)', () => {
    const parsed = ServerConfigSchema.safeParse({ command: 'node' });
    expect(parsed.success).toBe(false);
    expect(describeZodError(parsed.error!, 'config').message).toBe(
      'The kind of server is missing or not known: set "type" to "stdio", "http" or "sse".',
    );
  });
});
