/** A UI hub and a Chromium to look at it, started together for one test file and closed together. */
import { launchChromium, openPage, type OpenedPage, type PageOptions } from './browser.js';
import { startUiHub, type UiHub, type UiHubOptions } from './ui-hub.js';

export interface UiInChromium {
  hub: UiHub;
  /** A new page (own cookies) at the hub's UI. */
  open(options?: PageOptions): Promise<OpenedPage>;
  close(): Promise<void>;
}

export async function startUiInChromium(options: UiHubOptions = {}): Promise<UiInChromium> {
  const hub = await startUiHub(options);
  const browser = await launchChromium().catch(async (error: unknown) => {
    await hub.close();
    throw error;
  });
  return {
    hub,
    open: (pageOptions) => openPage(browser, hub.url, pageOptions),
    async close() {
      await browser.close();
      await hub.close();
    },
  };
}
