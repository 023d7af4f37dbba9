/** The spill store of the fake backend: spilled results in memory, addressed by handle. */
import type { SpillEntryInfo } from '../../shared/api-spill.js';
import type { Handlers } from './fake-backend.js';

export class FakeSpill {
  readonly entries = new Map<string, { info: SpillEntryInfo; text: string }>();

  constructor(private readonly quota: () => number) {}

  /** Keeps `text` under `handle` as if a call had spilled it. */
  add(handle: string, text: string, extra: Partial<SpillEntryInfo> = {}): SpillEntryInfo {
    const now = new Date();
    const info: SpillEntryInfo = {
      handle,
      server: 'files',
      tool: 'read_file',
      client: 'claude-ai',
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + 24 * 3600_000).toISOString(),
      lastAccess: now.toISOString(),
      bytes: new TextEncoder().encode(text).length,
      lines: text.split('\n').length,
      tokens: Math.ceil(text.length / 4),
      tokensEstimated: false,
      contentType: 'text/plain',
      ...extra,
    };
    this.entries.set(handle, { info, text });
    return info;
  }

  readonly handlers: Handlers = {
    'spill.list': () => ({ ok: true, value: [...this.entries.values()].map((e) => e.info) }),
    'spill.preview': (req) => {
      const entry = this.entries.get(req.handle);
      if (!entry) return { ok: false, code: 'not_found', field: 'handle', message: `no spilled result ${req.handle} (it may have expired)` };
      // Roughly maxTokens × 4 characters, as the real preview is token-bounded.
      const limit = req.maxTokens * 4;
      return { ok: true, value: { entry: entry.info, text: entry.text.slice(0, limit), truncated: entry.text.length > limit } };
    },
    'spill.delete': (req) => ({ ok: true, value: { deleted: this.entries.delete(req.handle) } }),
    'spill.clear': () => {
      const deleted = this.entries.size;
      this.entries.clear();
      return { ok: true, value: { deleted } };
    },
    'spill.usage': () => ({
      ok: true,
      value: {
        entries: this.entries.size,
        bytes: [...this.entries.values()].reduce((n, e) => n + e.info.bytes, 0),
        quotaBytes: this.quota(),
      },
    }),
  };
}
