// Request decoding for the routes: a query string or a JSON body against one Schema, failing with the
// gateway's ApiError (400 + every bad field) so no route ever answers 500 for bad input.
import { fieldErrors } from "@svc/core";
import { Result, Schema } from "effect";
import { ApiError } from "../errors.ts";

// Query values are strings; these are the ones a schema expects as numbers. Only a plain decimal
// integer is converted, so `days=1e2` or `days=3.5` still reaches the schema as a string and is rejected.
const INTEGER = /^[+-]?\d{1,15}$/;

/**
 * Decodes the query string. Integer-valued parameters listed in `integers` are converted first; unknown
 * parameters are ignored (links carry tracking parameters); a repeated one uses its first value.
 */
export function decodeQuery<S extends Schema.Decoder<unknown>>(schema: S, query: URLSearchParams, integers: readonly string[] = []): S["Type"] {
  const input: Record<string, unknown> = {};
  for (const key of new Set(query.keys())) {
    const value = query.get(key)!;
    input[key] = integers.includes(key) && INTEGER.test(value.trim()) ? Number(value.trim()) : value;
  }
  const result = Schema.decodeUnknownResult(schema, { errors: "all" })(input);
  if (Result.isSuccess(result)) return result.success;
  throw new ApiError("invalid_query", "invalid query", fieldErrors(result.failure.issue));
}

/** Decodes a JSON body; unknown fields are rejected so a misspelt field never silently does nothing. */
export function decodeBody<S extends Schema.Decoder<unknown>>(schema: S, body: Buffer | null): S["Type"] {
  let input: unknown;
  try {
    input = JSON.parse(body === null || body.length === 0 ? "" : body.toString("utf8"));
  } catch {
    throw new ApiError("malformed_json");
  }
  const result = Schema.decodeUnknownResult(schema, { errors: "all", onExcessProperty: "error" })(input);
  if (Result.isSuccess(result)) return result.success;
  throw new ApiError("invalid_body", "invalid body", fieldErrors(result.failure.issue));
}
