/**
 * A server whose address keeps a secret part in the store (`${SPILLWAY_SECRET_URL_n}`, from the catalog)
 * is the same server as an app's entry with the key written in its address: importing that entry again
 * must not add it twice. A different key is another account.
 */
import { describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../shared/config.js';
import { candidateIdentity, configIdentity } from '../../electron/core/clients/same-server.js';

const kept = {
  type: 'http',
  url: 'https://mcp.example.com/${SPILLWAY_SECRET_URL_1}/mcp',
  headers: { SPILLWAY_SECRET_URL_1: 'k-7f3a9c1e5b2d', 'x-team': 'blue' },
  enabled: true,
  prefix: true,
} as ServerConfig;

describe('the same server, with a secret part of its address in the store', () => {
  it('is the app entry with that key in its address', () => {
    const entry = { name: 'example', kind: 'http' as const, url: 'https://mcp.example.com/k-7f3a9c1e5b2d/mcp', headers: { 'x-team': 'blue' } };
    expect(configIdentity(kept)).toBe(candidateIdentity(entry));
  });

  it('is not the entry with another key', () => {
    const other = { name: 'example', kind: 'http' as const, url: 'https://mcp.example.com/k-other-key-0/mcp', headers: { 'x-team': 'blue' } };
    expect(configIdentity(kept)).not.toBe(candidateIdentity(other));
  });
});
