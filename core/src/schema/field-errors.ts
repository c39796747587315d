// Turns an effect/Schema issue tree into the flat `{path, message}` list that a 400 response carries.

import { SchemaIssue } from "effect";
import type { FieldError } from "../types.ts";

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `["p", "plan"]` → `p.plan`, `[3, "status"]` → `[3].status`, `["p", "a b"]` → `p["a b"]`; the body itself is `""`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && IDENTIFIER.test(key)) out += out === "" ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

// Messages never echo the input: a bad `ip` or a prop value must not travel into an error body or a log line.
function annotatedMessage(annotations: { readonly [key: string]: unknown } | undefined, key: string): string | undefined {
  const message = annotations?.[key];
  return typeof message === "string" ? message : undefined;
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1({
  leafHook: (issue) => {
    switch (issue._tag) {
      case "MissingKey":
        return annotatedMessage(issue.annotations, "messageMissingKey") ?? "is required";
      case "InvalidType":
        return annotatedMessage(issue.ast.annotations, "message") ?? "has the wrong type";
      case "InvalidValue":
      case "Forbidden":
        return annotatedMessage(issue.annotations, "message") ?? "is invalid";
      default:
        return "is invalid";
    }
  },
  // Without a message on the filter, a Pointer below it (a prop filter's per-key issue) carries its own message;
  // a bare InvalidValue gets a neutral one, because the default would print the filter and the input.
  checkHook: (issue) =>
    annotatedMessage(issue.filter.annotations, "message") ??
    (issue.issue._tag === "InvalidValue" ? (annotatedMessage(issue.issue.annotations, "message") ?? "is invalid") : undefined),
});

// A 64 KB body can hold ~10,000 bad props; 50 errors (~4 KB of JSON) tell a client what to fix without echoing
// a megabyte back.
export const MAX_FIELD_ERRORS = 50;

export function fieldErrors(issue: SchemaIssue.Issue, prefix: ReadonlyArray<PropertyKey> = []): FieldError[] {
  const all = formatter(issue).issues;
  const errors = all.slice(0, MAX_FIELD_ERRORS).map((i) => ({
    path: formatPath([...prefix, ...(i.path ?? []).map((p) => (typeof p === "object" ? p.key : p))]),
    message: i.message,
  }));
  if (all.length > MAX_FIELD_ERRORS) errors.push({ path: "", message: `and ${all.length - MAX_FIELD_ERRORS} more errors` });
  return errors;
}
