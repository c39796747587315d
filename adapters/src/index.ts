export { HitSender, SvcSendError, createSender, type SenderStats } from "./sender.ts";
export { SvcOptionsError, MAX_BATCH_SIZE, type SvcOptions, type ResolvedOptions } from "./options.ts";
export {
  buildHit,
  requestPath,
  MAX_PATH_CHARS,
  MAX_REFERRER_CHARS,
  MAX_USER_AGENT_CHARS,
  type Hit,
  type FinishedRequest,
  type HitSettings,
} from "./hit.ts";
export { clientAddress, UNKNOWN_ADDRESS } from "./client-address.ts";
export { isPlainBrowser } from "./browser-ua.ts";
