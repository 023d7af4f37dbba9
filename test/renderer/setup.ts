/**
 * jsdom has no layout. Virtua (the live log) and the chart size themselves with ResizeObserver, which
 * jsdom lacks, and render nothing at size 0. This stand-in reports a fixed layout instead: elements
 * marked `data-test-height` get that height, everything else one 28 px log row. Sizes are reported
 * once, right after observe(), as a real observer does.
 */
const ROW_PX = 28;

function heightOf(el: Element): number {
  const marked = el.closest('[data-test-height]')?.getAttribute('data-test-height');
  return el.classList.contains('log-list') && marked ? Number(marked) : ROW_PX;
}

class FixedLayoutResizeObserver {
  #callback: ResizeObserverCallback;
  #observed = new Set<Element>();
  constructor(callback: ResizeObserverCallback) {
    this.#callback = callback;
  }
  observe(target: Element): void {
    this.#observed.add(target);
    queueMicrotask(() => {
      if (!this.#observed.has(target)) return;
      const height = heightOf(target);
      const entry = { target, contentRect: { width: 800, height } } as unknown as ResizeObserverEntry;
      this.#callback([entry], this as unknown as ResizeObserver);
    });
  }
  unobserve(target: Element): void {
    this.#observed.delete(target);
  }
  disconnect(): void {
    this.#observed.clear();
  }
}

(globalThis as { ResizeObserver?: unknown }).ResizeObserver = FixedLayoutResizeObserver;

// jsdom has no Element.scrollTo; virtua scrolls with it. Setting the offsets is all a test can observe.
if (typeof Element.prototype.scrollTo !== 'function') {
  Element.prototype.scrollTo = function scrollTo(this: Element, x?: ScrollToOptions | number, y?: number) {
    const opts = typeof x === 'object' ? x : { left: x, top: y };
    if (opts.top !== undefined) this.scrollTop = opts.top;
    if (opts.left !== undefined) this.scrollLeft = opts.left;
  } as Element['scrollTo'];
}

// jsdom has no matchMedia; uPlot reads devicePixelRatio changes through it when it loads.
if (typeof window.matchMedia !== 'function') {
  window.matchMedia = ((query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addEventListener() {},
    removeEventListener() {},
    addListener() {},
    removeListener() {},
    dispatchEvent: () => false,
  })) as unknown as typeof window.matchMedia;
}

// jsdom has no canvas: give uPlot a 2D context that draws nothing (tests check the chart is there, not pixels).
HTMLCanvasElement.prototype.getContext = function getContext() {
  const noop = () => undefined;
  return new Proxy({} as Record<string | symbol, unknown>, {
    get: (target, key) => (key in target ? target[key] : key === 'measureText' ? () => ({ width: 0 }) : noop),
    set: (target, key, value) => {
      target[key] = value;
      return true;
    },
  });
} as unknown as HTMLCanvasElement['getContext'];

// uPlot builds its series paths as Path2D objects, which jsdom does not have either.
if (typeof (globalThis as { Path2D?: unknown }).Path2D === 'undefined') {
  (globalThis as { Path2D?: unknown }).Path2D = class Path2D {
    moveTo() {}
    lineTo() {}
    closePath() {}
    rect() {}
    arc() {}
    bezierCurveTo() {}
    quadraticCurveTo() {}
    addPath() {}
  };
}
