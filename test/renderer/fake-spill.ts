/** The spill store of the fake backend: spilled results in memory, addressed by handle. */
import type { SpillEntryInfo, SpillReadRequest } from '../../shared/api-spill.js';
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
    'spill.read': (req) => {
      const entry = this.entries.get(req.handle);
      if (!entry) return { ok: false, code: 'not_found', field: 'handle', message: `no spilled result ${req.handle} (it may have expired)` };
      const text = readOp(entry.text, req);
      return 'error' in text ? { ok: false, code: 'invalid', field: 'pattern', message: text.error } : { ok: true, value: { text: text.ok } };
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

const count = (n: number) => n.toLocaleString('en-US');

/** slice, grep and read in the output format of the hub's read ops (electron/core/spill/read-ops.ts). */
function readOp(text: string, req: SpillReadRequest): { ok: string } | { error: string } {
  const lines = text.split('\n');
  switch (req.op) {
    case 'slice': {
      const start = req.start ?? 1;
      if (start > lines.length) return { error: `Line ${count(start)} is past the end: the result has ${count(lines.length)} lines.` };
      const last = Math.min(req.end ?? start + 99, lines.length);
      return { ok: `Lines ${count(start)}-${count(last)} of ${count(lines.length)}:\n${lines.slice(start - 1, last).join('\n')}` };
    }
    case 'grep': {
      let regex: RegExp;
      try {
        regex = new RegExp(req.pattern ?? '', req.caseSensitive ? '' : 'i');
      } catch (e) {
        return { error: `Bad regular expression ${JSON.stringify(req.pattern)}: ${(e as Error).message}.` };
      }
      const hits = lines.flatMap((l, i) => (regex.test(l) ? [`${i + 1}:${l}`] : []));
      const shown = hits.slice(0, req.maxMatches ?? 50);
      const head = `grep /${req.pattern}/i: ${count(hits.length)} matching lines of ${count(lines.length)}`;
      return { ok: hits.length === 0 ? `${head}.` : [`${head}:`, ...shown].join('\n') };
    }
    case 'read': {
      // 4 characters a token, as the fake's preview counts them.
      const offset = req.offset ?? 0;
      const chunk = text.slice(offset, offset + (req.maxTokens ?? 2_000) * 4);
      const next = offset + chunk.length;
      if (chunk.length === 0) return { ok: `[offset ${count(offset)} is the end of the text (${count(text.length)} characters)]` };
      return next >= text.length
        ? { ok: `${chunk}\n[end of text: characters ${count(offset)}-${count(next)} of ${count(text.length)}]` }
        : { ok: `${chunk}\n[characters ${count(offset)}-${count(next)} of ${count(text.length)}; continue with {"op":"read","offset":${next}}]` };
    }
    default:
      return { error: `the fake reads slice, grep and read only, not ${req.op}` };
  }
}
