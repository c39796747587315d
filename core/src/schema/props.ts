// Custom event props: a flat JSON object of at most 30 short keys with string, number or boolean values,
// and never an e-mail address (SPEC: props must be non-identifying).

import { Schema } from "effect";
import { LIMITS } from "./limits.ts";
import { isStoredText, STORED_TEXT_MESSAGE, storedText } from "./stored-text.ts";

export type PropValue = string | number | boolean;
export type Props = Record<string, PropValue>;

export function isPlainObject(u: unknown): u is Record<string, unknown> {
  if (typeof u !== "object" || u === null) return false;
  const proto = Object.getPrototypeOf(u);
  return proto === Object.prototype || proto === null;
}

const VALUE_MESSAGE = `must be a string (at most ${LIMITS.propValue} characters), a finite number or a boolean`;
const KEY_MESSAGE = `prop names must be 1 to ${LIMITS.propKey} characters`;
const COUNT_MESSAGE = `must have at most ${LIMITS.props} props`;
// A prop name is an identifier: normalising it could merge two names into one, so a bad one is an error.
const KEY_TEXT_MESSAGE = `prop names ${STORED_TEXT_MESSAGE}`;

function isPropValue(v: unknown): v is PropValue {
  switch (typeof v) {
    case "string":
      return v.length <= LIMITS.propValue;
    case "number":
      return Number.isFinite(v);
    case "boolean":
      return true;
    default:
      return false;
  }
}

/** true when every key and value is within limits; the fast path's check, with no allocation. */
export function arePropsValid(props: Record<string, unknown>): boolean {
  let count = 0;
  for (const key in props) {
    if (!Object.hasOwn(props, key)) continue;
    if (++count > LIMITS.props) return false;
    if (key.length === 0 || key.length > LIMITS.propKey || !isStoredText(key)) return false;
    if (!isPropValue(props[key])) return false;
  }
  return true;
}

// One filter checks count, keys and values together so a client sees every problem at once; split across
// a Record's key and value schemas, a bad key would silently drop the prop and a bad count would hide the rest.
const propsFilter = Schema.makeFilter<Record<string, unknown>>((props) => {
  const issues: Schema.FilterIssue[] = [];
  const keys = Object.keys(props);
  if (keys.length > LIMITS.props) issues.push(COUNT_MESSAGE);
  for (const key of keys) {
    if (key.length === 0 || key.length > LIMITS.propKey) issues.push({ path: [key], issue: KEY_MESSAGE });
    else if (!isStoredText(key)) issues.push({ path: [key], issue: KEY_TEXT_MESSAGE });
    else if (!isPropValue(props[key])) issues.push({ path: [key], issue: VALUE_MESSAGE });
  }
  return issues;
});

const PropValueSchema = Schema.Union([
  Schema.String.check(Schema.isMaxLength(LIMITS.propValue)),
  Schema.Finite,
  Schema.Boolean,
]).annotate({ message: VALUE_MESSAGE });

/** A JSON object (not an array, Map or other class instance) of flat props. */
export const PropsSchema = Schema.declare(isPlainObject, { message: "must be a JSON object of props" })
  .check(propsFilter)
  .pipe(Schema.decodeTo(Schema.Record(Schema.String, PropValueSchema)));

// "local@domain.tld" anywhere in the text, also with the "@" percent-encoded as it is in a copied URL.
// Deliberately broad: dropping a harmless value costs one prop, keeping an address breaks the privacy promise.
const EMAIL = /[A-Za-z0-9._%+-]+(?:@|%40)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/;

export function looksLikeEmail(text: string): boolean {
  return text.includes("@") || text.includes("%40") ? EMAIL.test(text) : false;
}

/** The props with every string value in its stored form (stored-text.ts); the same object when nothing changes. */
export function storedProps(props: Props): Props {
  let changed = false;
  for (const key in props) {
    const value = props[key];
    if (typeof value === "string" && !isStoredText(value)) changed = true;
  }
  if (!changed) return props;
  // fromEntries, as below: a "__proto__" prop stays a prop.
  return Object.fromEntries(Object.entries(props).map(([key, value]) => [key, typeof value === "string" ? storedText(value) : value]));
}

/** The props without any whose key or string value looks like an e-mail address, and how many were dropped. */
export function dropEmailProps(props: Props): { props: Props; dropped: number } {
  let dropped = 0;
  for (const key in props) {
    const value = props[key];
    if (looksLikeEmail(key) || (typeof value === "string" && looksLikeEmail(value))) dropped++;
  }
  if (dropped === 0) return { props, dropped };
  // fromEntries defines keys as own data properties, so a "__proto__" prop stays a prop and never a prototype.
  const kept = Object.fromEntries(
    Object.entries(props).filter(([key, value]) => !(looksLikeEmail(key) || (typeof value === "string" && looksLikeEmail(value)))),
  );
  return { props: kept, dropped };
}
