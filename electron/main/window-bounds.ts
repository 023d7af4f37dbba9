/**
 * Where the window opens: the saved bounds when they are still on a connected display, otherwise the
 * default size centred on the primary display. Pure; the shell passes `screen.getAllDisplays()` work areas.
 */
import { DEFAULT_WINDOW_SIZE, MIN_WINDOW_SIZE, type WindowBounds } from './window-options.js';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** How much of the title bar area must be visible for saved bounds to count as on-screen. */
const MIN_VISIBLE = { width: 120, height: 40 } as const;

function overlap(a: Rect, b: Rect): { width: number; height: number } {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return { width: Math.max(0, width), height: Math.max(0, height) };
}

function centred(area: Rect): WindowBounds {
  const width = Math.min(DEFAULT_WINDOW_SIZE.width, Math.max(MIN_WINDOW_SIZE.width, area.width));
  const height = Math.min(DEFAULT_WINDOW_SIZE.height, Math.max(MIN_WINDOW_SIZE.height, area.height));
  return {
    x: Math.round(area.x + (area.width - width) / 2),
    y: Math.round(area.y + (area.height - height) / 2),
    width,
    height,
  };
}

/**
 * The bounds to open with. `workAreas[0]` is the primary display. Saved bounds are kept when their top
 * strip (where the title bar is) overlaps some display enough to grab; sizes are clamped to the minimum
 * and to the display they are on.
 */
export function restoreBounds(saved: Rect | undefined, workAreas: readonly Rect[]): WindowBounds {
  const primary = workAreas[0];
  if (!primary) return { ...DEFAULT_WINDOW_SIZE };
  if (!saved || ![saved.x, saved.y, saved.width, saved.height].every(Number.isFinite)) return centred(primary);
  // The title strip, moved down below the display's top edge (a window dragged up against the menu bar
  // comes back just under it), must overlap the display enough to be grabbed.
  const strip = (area: Rect): Rect => ({ x: saved.x, y: Math.max(saved.y, area.y), width: saved.width, height: MIN_VISIBLE.height });
  const home = workAreas.find((area) => {
    const o = overlap(strip(area), area);
    return o.width >= MIN_VISIBLE.width && o.height >= MIN_VISIBLE.height / 2;
  });
  if (!home) return centred(primary);
  const bounds = {
    x: Math.round(saved.x),
    y: Math.round(Math.max(saved.y, home.y)),
    width: Math.round(Math.min(Math.max(saved.width, MIN_WINDOW_SIZE.width), Math.max(home.width, MIN_WINDOW_SIZE.width))),
    height: Math.round(Math.min(Math.max(saved.height, MIN_WINDOW_SIZE.height), Math.max(home.height, MIN_WINDOW_SIZE.height))),
  };
  // A narrower window keeps its left edge: what overlapped the display may now be off it entirely (one
  // saved across two monitors, the other gone). Then it moves into the display's work area.
  const o = overlap({ ...bounds, height: MIN_VISIBLE.height }, home);
  if (o.width >= MIN_VISIBLE.width && o.height >= MIN_VISIBLE.height / 2) return bounds;
  const into = (pos: number, size: number, start: number, length: number) => Math.round(Math.max(start, Math.min(pos, start + length - size)));
  return { ...bounds, x: into(bounds.x, bounds.width, home.x, home.width), y: into(bounds.y, bounds.height, home.y, home.height) };
}
