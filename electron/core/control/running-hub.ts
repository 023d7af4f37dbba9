/**
 * The control API of a data folder's running hub, for `spillway clients`: it goes through that hub —
 * its tokens, the port it listens on — even when it was started on another port than the config says
 * (issue 13, item 5). Where the hub listens comes from its record in the folder (files/hub-identity.ts);
 * that is a hint, never trusted: a hub is used only when it answers with this folder's token and names
 * this folder as its own.
 */
import { resolve } from 'node:path';
import type { ApiResult } from '../../../shared/api.js';
import { readHubRecord } from '../files/hub-identity.js';

export type ControlCall = (method: string, req: unknown) => Promise<ApiResult<unknown>>;

/** The origin (`http://127.0.0.1:PORT`) the folder's hub recorded while running, if any. */
async function recordedOrigin(dataDir: string): Promise<string | undefined> {
  const record = await readHubRecord(dataDir);
  if (record?.state !== 'running' || !record.url) return undefined;
  try {
    const url = new URL(record.url);
    return url.hostname === '127.0.0.1' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The running hub of `dataDir`: tried where it recorded it listens, then at each of `fallbackOrigins`;
 * undefined when none answers as this folder's hub (another Spillway refuses the token, or serves
 * another folder).
 */
export async function findRunningHub(options: { dataDir: string; token: string; fallbackOrigins: string[] }): Promise<ControlCall | undefined> {
  const recorded = await recordedOrigin(options.dataDir);
  for (const origin of new Set([...(recorded ? [recorded] : []), ...options.fallbackOrigins])) {
    const call = async (method: string, req: unknown, signal?: AbortSignal): Promise<ApiResult<unknown>> => {
      const res = await fetch(`${origin}/api/${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(req),
        ...(signal ? { signal } : {}),
      });
      return (await res.json()) as ApiResult<unknown>;
    };
    try {
      // Something that accepts and never answers must not hang the command.
      const status = await call('status', {}, AbortSignal.timeout(3000));
      const dataDir = status.ok ? (status.value as { dataDir?: unknown }).dataDir : undefined;
      if (typeof dataDir === 'string' && resolve(dataDir) === resolve(options.dataDir)) return (method, req) => call(method, req);
    } catch {
      // Nothing answers there (or not as a hub): try the next.
    }
  }
  return undefined;
}
