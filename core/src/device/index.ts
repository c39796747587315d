// Device class, browser and OS from the User-Agent: ua-parser-js 1.x (MIT; DESIGN) behind a bounded cache,
// because a parse costs ~20 µs while a day's traffic repeats a few thousand distinct UA strings.

import { isbot } from "isbot";
import { UAParser } from "ua-parser-js";
import type { DeviceType } from "../types.ts";
import { Generations } from "../generations.ts";

export interface DeviceInfo {
  readonly device: DeviceType;
  /** Browser family without version ("Chrome", "Safari", "Firefox"); null when unknown. */
  readonly browser: string | null;
  /** OS family without version ("Windows", "macOS", "iOS", "Android"); null when unknown. */
  readonly os: string | null;
  /** The browser's version as major.minor ("131.0", "17.5"), as Plausible stores it; null when unknown. */
  readonly browser_version: string | null;
  /** The OS's version as major.minor ("10", "17.5", "10.15"); null when unknown. */
  readonly os_version: string | null;
}

// ua-parser names the mobile builds separately; the device column already says mobile, so one family per browser
// keeps the browser breakdown from splitting Safari into two rows.
const BROWSER_NAMES: Readonly<Record<string, string>> = {
  "Mobile Safari": "Safari",
  "Mobile Firefox": "Firefox",
  "Mobile Chrome": "Chrome",
};
const OS_NAMES: Readonly<Record<string, string>> = {
  "Mac OS": "macOS",
  "Chromium OS": "ChromeOS",
};

const OTHER: DeviceInfo = Object.freeze({ device: "other", browser: null, os: null, browser_version: null, os_version: null });

/** "131.0.6778.85" → "131.0", "10" → "10": Plausible's major.minor, so a breakdown is not split by every patch release. */
export function majorMinor(version: string | undefined): string | null {
  if (version === undefined || version === "") return null;
  const first = version.indexOf(".");
  const second = first === -1 ? -1 : version.indexOf(".", first + 1);
  return second === -1 ? version : version.slice(0, second);
}

/** Uncached parse. Bots and unknown clients are "other": a desktop count should mean people at a desk. */
export function parseDeviceUncached(ua: string): DeviceInfo {
  if (ua.trim() === "") return OTHER;
  const result = new UAParser(ua).getResult();
  const browserName = result.browser.name;
  const osName = result.os.name;
  const browser = browserName === undefined ? null : (BROWSER_NAMES[browserName] ?? browserName);
  const os = osName === undefined ? null : (OS_NAMES[osName] ?? osName);
  let device: DeviceType;
  if (isbot(ua)) device = "other";
  else if (result.device.type === "mobile") device = "mobile";
  else if (result.device.type === "tablet") device = "tablet";
  // Consoles, smart TVs, wearables, XR headsets, embedded browsers.
  else if (result.device.type !== undefined) device = "other";
  else if (os === "iOS" || os === "Android") device = "mobile";
  else if (browser !== null || os !== null) device = "desktop";
  else device = "other";
  const browser_version = browser === null ? null : majorMinor(result.browser.version);
  const os_version = os === null ? null : majorMinor(result.os.version);
  return Object.freeze({ device, browser, os, browser_version, os_version });
}

/** A parser with its own cache of at most `capacity` UA strings, in two generations (generations.ts). */
export function createDeviceParser(capacity: number): (ua: string) => DeviceInfo {
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`device cache capacity must be a positive integer, got ${capacity}`);
  // Each generation holds half; a capacity of 1 keeps the young generation alone.
  const cache = capacity === 1 ? new Generations<DeviceInfo>(1, false) : new Generations<DeviceInfo>(Math.floor(capacity / 2));
  return (ua) => cache.get(ua, parseDeviceUncached);
}

// 10,000 entries: the corpus mix has ~400 distinct UAs and a busy site a few thousand a day, so the hot set fits.
// Memory is bounded by the schema's 1,024-char UA limit: ~3 MB at typical ~200-char UAs, ~12 MB if a UA-rotating
// crawler fills it with maximal strings; a flood then costs one re-parse per miss, never unbounded growth.
export const DEVICE_CACHE_CAPACITY = 10_000;

export const parseDevice: (ua: string) => DeviceInfo = createDeviceParser(DEVICE_CACHE_CAPACITY);
