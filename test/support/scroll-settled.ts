/** Waiting in the page for a scrolled element to come to rest, by animation frames rather than by time. */
import type { Locator } from 'playwright-core';

/**
 * Resolves once the element's scroll position, content height and visible height have stayed the same
 * from one animation frame to the next `frames` times in a row: a scroll the page makes itself (a list
 * measuring its rows, following its end) moves something from one frame to the next until it is done.
 * A move the page makes only after more than `frames` still frames (5: about 80 ms) is not waited for.
 */
export async function scrollSettled(list: Locator, frames = 5): Promise<void> {
  await list.evaluate(
    (el, frames) =>
      new Promise<void>((resolve) => {
        const win = el.ownerDocument.defaultView!;
        let last = '';
        let same = 0;
        const look = () => {
          const now = `${el.scrollTop} ${el.scrollHeight} ${el.clientHeight}`;
          same = now === last ? same + 1 : 0;
          last = now;
          if (same >= frames) resolve();
          else win.requestAnimationFrame(look);
        };
        win.requestAnimationFrame(look);
      }),
    frames,
  );
}
