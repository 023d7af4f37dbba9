/**
 * Registry pages as the catalog passes them on, whatever the registry sends: at most a page's worth of
 * items (a registry that ignores `limit` may send its whole list), each server once (one that ignores
 * `version=latest` lists every version). A page cut short goes on from where it was cut: the catalog's
 * cursor then names the registry's cursor and how many of that answer's items were passed on already.
 */
import { officialMeta, type ServerResponse } from './server-json.js';

/** The most items one page passes on: the MCP Registry's own largest page (`limit` allows 1–100). */
export const MOST_PER_PAGE = 100;
/** Marks a cursor into an answer cut short: `~at~<items passed on>~<the registry's cursor>` (registry cursors never start with `~`). */
const AT = '~at~';

/** Where a page starts: the registry's cursor, and how many items of its answer were passed on already. */
export interface PagePlace {
  cursor?: string;
  from: number;
}

/** The catalog's cursor for a place (the registry's own cursor when nothing of its answer was passed on). */
export function placeCursor(place: PagePlace): string | undefined {
  return place.from > 0 ? `${AT}${place.from}~${place.cursor ?? ''}` : place.cursor;
}

/** The place a catalog cursor names. */
export function cursorPlace(cursor: string | undefined): PagePlace {
  const cut = cursor?.startsWith(AT) ? /^(\d+)~(.*)$/s.exec(cursor.slice(AT.length)) : null;
  if (!cut) return { ...(cursor ? { cursor } : {}), from: 0 };
  return { ...(cut[2] ? { cursor: cut[2] } : {}), from: Number(cut[1]) };
}

/**
 * A list answer with only the items from `from` on, at most `most` of them, before they are read (a
 * whole list of 20,000 is not checked item by item); `rest` when items are left after them.
 */
export function cutAnswer(body: unknown, from: number, most: number): { body: unknown; rest: boolean } {
  if (typeof body !== 'object' || body === null || !('servers' in body) || !Array.isArray(body.servers)) return { body, rest: false };
  if (from === 0 && body.servers.length <= most) return { body, rest: false };
  return { body: { ...body, servers: body.servers.slice(from, from + most) }, rest: body.servers.length > from + most };
}

/**
 * Each server once, where it first appears: as the registry marks its latest version when it lists
 * several, else as it first comes.
 */
export function onePerName(responses: readonly ServerResponse[]): ServerResponse[] {
  const kept = new Map<string, ServerResponse>();
  for (const response of responses) {
    const name = response.server.name;
    const had = kept.get(name);
    if (!had || (officialMeta(response)?.isLatest === true && officialMeta(had)?.isLatest !== true)) kept.set(name, response);
  }
  return [...kept.values()];
}
