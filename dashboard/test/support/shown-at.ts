// When a live number changed on screen, as the page itself saw it. A "within 1 s of the 202" bound measured up to
// when Playwright's polling noticed the change also counted its poll interval, its round trips to the browser and,
// with the full suite on a 2-core CI box, the test process waiting for a core: one run measured 1,097 ms. A
// MutationObserver in the page records Date.now() there (the test's clock: same machine) when every number shows.
import type { Frame, Page } from "playwright-core";

/** The element of each selector showing its number (thousands separators ignored). */
export type ShownNumbers = ReadonlyArray<readonly [selector: string, value: number]>;

type Watched = Window & { svcShownAt?: number };

/** Starts watching `target` for `numbers`; call it before sending what should change them. */
export async function watchNumbers(target: Page | Frame, numbers: ShownNumbers): Promise<void> {
  await target.evaluate((pairs) => {
    const w = window as Watched;
    delete w.svcShownAt;
    const shown = () => pairs.every(([selector, value]) => Number(document.querySelector(selector)?.textContent?.replaceAll(",", "")) === value);
    const observer = new MutationObserver(() => {
      if (!shown()) return;
      w.svcShownAt = Date.now();
      observer.disconnect();
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  }, numbers);
}

/** When the page first showed the numbers `watchNumbers` waits for (ms since the epoch); fails after `timeoutMs`. */
export async function shownAt(target: Page | Frame, timeoutMs = 3_000): Promise<number> {
  await target.waitForFunction(() => (window as Watched).svcShownAt !== undefined, undefined, { timeout: timeoutMs, polling: 20 });
  return target.evaluate(() => (window as Watched).svcShownAt!);
}
