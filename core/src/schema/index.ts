export { LIMITS } from "./limits.ts";
export { fieldErrors, formatPath, MAX_FIELD_ERRORS } from "./field-errors.ts";
export { arePropsValid, dropEmailProps, isPlainObject, looksLikeEmail, PropsSchema, storedProps, type PropValue, type Props } from "./props.ts";
export { isStoredText, STORED_TEXT_MESSAGE, storedNullableText, storedText } from "./stored-text.ts";
export { BrowserEventBody, decodeBrowserEvent, decodeBrowserEventWithSchema, type BrowserEvent, type BrowserEventWire, type Decoded } from "./browser-event.ts";
export { decodeServerHits, decodeServerHitsWithSchema, ServerHitBody, ServerHitsBody, type ServerHit, type ServerHitWire } from "./server-hit.ts";
export { dropEmailsFromEvent, dropEmailsFromHit, EMAIL_PLACEHOLDER, scrubEmails } from "./emails.ts";
