export { HitSender, SvcSendError, createSender, type SenderStats } from "./sender.ts";
export { SvcOptionsError, MAX_BATCH_SIZE, type SvcOptions, type ResolvedOptions } from "./options.ts";
export {
  buildHit,
  clientAddress,
  requestPath,
  normalizeAddress,
  isIpAddress,
  UNKNOWN_ADDRESS,
  MAX_PATH_CHARS,
  MAX_REFERRER_CHARS,
  MAX_USER_AGENT_CHARS,
  type Hit,
  type FinishedRequest,
  type HitSettings,
} from "./hit.ts";
export { isPlainBrowser } from "./browser-ua.ts";
