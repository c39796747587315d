// What a tracker test needs: a real browser, a local site that captures events, fixture pages, page probes.
export { CHROMIUM_PATH, launchBrowser, openPage, type OpenedPage } from "./browser.ts";
export { fixturePage, type FixturePageOptions } from "./fixture-page.ts";
export { startTestSite, type CapturedEvent, type TestSite, type TestSiteOptions } from "./test-site.ts";
export {
  RECORD_SENDS,
  REMOVE_SEND_BEACON,
  WATCH_STORAGE,
  recordedBodies,
  recordedSends,
  storageNow,
  storageProbe,
  unhandledRejections,
  type RecordedSend,
  type StorageProbe,
  type StorageSnapshot,
} from "./page-probes.ts";
