/**
 * A server's revision (upstreams.list shows it; an edit sends it back) is hashed once per stored config:
 * the window asks for the list often, and a server not changed since keeps its revision without a new
 * hash. A change of the config (a new object: every save makes one) or of its secrets gives a new one, and
 * an edit started from the old one is refused.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ServerConfigSchema, type ServerConfig } from '../../shared/config.js';
import { CHANGED_ELSEWHERE, ServerRevisions } from '../../electron/core/control/server-revisions.js';

const hashes = vi.hoisted(() => ({ made: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  const createHash: typeof real.createHash = (...args) => {
    hashes.made++;
    return real.createHash(...args);
  };
  return { ...real, createHash };
});

const server = (extra: Record<string, unknown> = {}): ServerConfig =>
  ServerConfigSchema.parse({ type: 'stdio', command: 'node', args: ['server.js'], env: { TEAM: 'a' }, ...extra });

/** What `check` throws for an edit started from another revision. */
const conflict = { code: 'conflict', message: CHANGED_ELSEWHERE, field: 'revision' };

beforeEach(() => {
  hashes.made = 0;
});

describe('server revisions', () => {
  it('are not hashed again while neither the config nor its secrets changed', () => {
    const revisions = new ServerRevisions();
    const stored = { files: server(), memory: server({ command: 'npx' }) };
    const first = { files: revisions.of('files', stored.files), memory: revisions.of('memory', stored.memory) };
    expect(hashes.made).toBe(2);
    for (let list = 0; list < 50; list++) {
      expect(revisions.of('files', stored.files)).toBe(first.files);
      expect(revisions.of('memory', stored.memory)).toBe(first.memory);
    }
    expect(hashes.made).toBe(2);
    expect(first.files).not.toBe(first.memory);
  });

  it('a saved change (a new config object) gives a new revision; the same content, the same one', () => {
    const revisions = new ServerRevisions();
    const before = server();
    const opened = revisions.of('files', before);

    // A save that changed nothing still stores a new object: hashed, and the revision stays.
    const same = server();
    expect(revisions.of('files', same)).toBe(opened);
    expect(() => revisions.check('files', same, opened)).not.toThrow();

    const changed = server({ enabled: false });
    const now = revisions.of('files', changed);
    expect(now).not.toBe(opened);
    expect(() => revisions.check('files', changed, opened)).toThrow(expect.objectContaining(conflict));
    expect(() => revisions.check('files', changed, now)).not.toThrow();
  });

  it('a secret value written gives the same config object a new revision', () => {
    const revisions = new ServerRevisions();
    const stored = server();
    const opened = revisions.of('files', stored);
    revisions.secretsWritten('files');
    const now = revisions.of('files', stored);
    expect(now).not.toBe(opened);
    expect(() => revisions.check('files', stored, opened)).toThrow(expect.objectContaining(conflict));
    expect(() => revisions.check('files', stored, now)).not.toThrow();
    // Only that server's: the same config under another id counts no secret written.
    expect(revisions.of('other', stored)).toBe(opened);
  });

  it('an edit is checked against the config as it is now, whatever was worked out before', () => {
    const revisions = new ServerRevisions();
    const stored = server();
    const opened = revisions.of('files', stored);
    // Saves never change a stored config in place; if one did, the check must still see it.
    stored.enabled = false;
    expect(() => revisions.check('files', stored, opened)).toThrow(expect.objectContaining(conflict));
  });
});
