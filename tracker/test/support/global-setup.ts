// dist/ is git-ignored, so every run builds svc.js itself: a fresh clone tests exactly what `npm start` serves.
import { buildTracker } from "../../scripts/build.ts";

export default async function setup(): Promise<void> {
  await buildTracker();
}
