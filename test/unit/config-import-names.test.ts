/**
 * An `mcpServers` file (`--config`, a first start from another app's file) whose names slug onto one
 * another: every server is imported, each under its own id. A name that is a usable id keeps it; a slug
 * never takes a name another server of the file has.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config.js';

const imported = (mcpServers: Record<string, unknown>) => parseConfig(JSON.stringify({ mcpServers })).config.servers;

describe('importing an mcpServers file', () => {
  it('keeps "My Server" when "my-server" comes after it', () => {
    const servers = imported({ 'My Server': { command: 'a' }, 'my-server': { command: 'b' } });
    expect(Object.keys(servers)).toEqual(['my-server-2', 'my-server']);
    expect(servers['my-server']).toMatchObject({ type: 'stdio', command: 'b' });
    expect(servers['my-server-2']).toMatchObject({ type: 'stdio', command: 'a' });
  });

  it('keeps "My Server" when "my-server" comes before it', () => {
    const servers = imported({ 'my-server': { command: 'b' }, 'My Server': { command: 'a' } });
    expect(servers['my-server']).toMatchObject({ command: 'b' });
    expect(servers['my-server-2']).toMatchObject({ command: 'a' });
  });

  it('gives the next free id when the first suffix is a name in the file too', () => {
    const servers = imported({ 'My Server': { command: 'a' }, 'my-server': { command: 'b' }, 'my-server-2': { command: 'c' } });
    expect(Object.keys(servers).sort()).toEqual(['my-server', 'my-server-2', 'my-server-3']);
    expect(servers['my-server-3']).toMatchObject({ command: 'a' });
    expect(servers['my-server-2']).toMatchObject({ command: 'c' });
  });

  it('gives two names with the same slug an id each', () => {
    const servers = imported({ 'My Server': { command: 'a' }, 'my server': { command: 'b' } });
    expect(servers['my-server']).toMatchObject({ command: 'a' });
    expect(servers['my-server-2']).toMatchObject({ command: 'b' });
  });
});
