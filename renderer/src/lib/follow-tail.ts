/**
 * Auto-scroll of the live log as a pure state machine: follow new rows while the user is at the end,
 * pause as soon as they scroll up, resume when they come back to the end or press "Jump to latest".
 * Growth of the content alone (new rows arriving) never pauses; only a move up does.
 */

export interface ScrollPosition {
  /** Distance scrolled from the top (px). */
  offset: number;
  /** Height of the visible area (px). */
  viewport: number;
  /** Height of all content (px). */
  size: number;
}

export interface TailState {
  following: boolean;
  /** Rows added while paused, for the "Jump to latest" badge. */
  unseen: number;
  lastOffset: number;
  /** 0 until the first scroll event: the viewport is not known yet. */
  lastViewport: number;
}

/** How close to the end still counts as "at the end" (px): sub-pixel rounding and zoom. */
export const END_SLACK_PX = 8;

export function initialTail(): TailState {
  return { following: true, unseen: 0, lastOffset: 0, lastViewport: 0 };
}

export function isAtEnd(p: ScrollPosition, slack = END_SLACK_PX): boolean {
  return p.offset + p.viewport >= p.size - slack;
}

/** The state after a scroll event at `p`. */
export function afterScroll(state: TailState, p: ScrollPosition): TailState {
  const moved = { lastOffset: p.offset, lastViewport: p.viewport };
  if (isAtEnd(p)) return { following: true, unseen: 0, ...moved };
  const known = state.lastViewport > 0;
  // A resized view (details pane opened, window resized) moves the offset without the user asking.
  if (known && p.viewport !== state.lastViewport) return { ...state, ...moved };
  // Before the first scroll event the log followed from the start, so it was at the end: short of it is a move up.
  if (!known || p.offset < state.lastOffset) return { ...state, following: false, ...moved };
  return { ...state, ...moved };
}

/** The state after `added` rows arrived; while following, the view scrolls and nothing is unseen. */
export function afterAppend(state: TailState, added: number): TailState {
  if (state.following || added <= 0) return state;
  return { ...state, unseen: state.unseen + added };
}

/** The state after "Jump to latest" (or the user pressing End). */
export function jumpToLatest(state: TailState): TailState {
  return { ...state, following: true, unseen: 0 };
}
