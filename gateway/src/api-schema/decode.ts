// Request decoding for the routes: a query string or a JSON body against one Schema, failing with the
// gateway's ApiError (400 + every bad field) so no route ever answers 500 for bad input.
import { fieldErrors } from "@svc/core";
import { Result, Schema, SchemaAST } from "effect";
import { ApiError } from "../errors.ts";

// Query values are strings; a parameter the schema declares as a number is converted first. Only a plain
// decimal integer is converted, so `days=1e2` or `days=3.5` still reaches the schema as a string and is rejected.
const INTEGER = /^[+-]?\d{1,15}$/;

const numericParams = new WeakMap<SchemaAST.AST, ReadonlySet<string>>();

/** The top-level fields of a query Struct whose type is a number, read once per schema. */
function numericParamsOf(ast: SchemaAST.AST): ReadonlySet<string> {
  let names = numericParams.get(ast);
  if (names === undefined) {
    names = new Set(SchemaAST.isObjects(ast) ? ast.propertySignatures.filter((p) => SchemaAST.isNumber(p.type)).map((p) => String(p.name)) : []);
    numericParams.set(ast, names);
  }
  return names;
}

/**
 * Decodes the query string. Unknown parameters are ignored (links carry tracking parameters); a repeated one
 * uses its first value.
 */
export function decodeQuery<S extends Schema.Decoder<unknown>>(schema: S, query: URLSearchParams): S["Type"] {
  const numeric = numericParamsOf(schema.ast);
  const input: Record<string, unknown> = {};
  for (const key of new Set(query.keys())) {
    const value = query.get(key)!;
    input[key] = numeric.has(key) && INTEGER.test(value.trim()) ? Number(value.trim()) : value;
  }
  const result = Schema.decodeUnknownResult(schema, { errors: "all" })(input);
  if (Result.isSuccess(result)) return result.success;
  throw new ApiError("invalid_query", "invalid query", fieldErrors(result.failure.issue));
}

/** Decodes a JSON body; unknown fields are rejected so a misspelt field never silently does nothing. */
export function decodeBody<S extends Schema.Decoder<unknown>>(schema: S, body: Buffer | null): S["Type"] {
  if (body === null || body.length === 0) throw new ApiError("malformed_json", "empty body");
  let input: unknown;
  try {
    input = JSON.parse(body.toString("utf8"));
  } catch {
    throw new ApiError("malformed_json");
  }
  const result = Schema.decodeUnknownResult(schema, { errors: "all", onExcessProperty: "error" })(input);
  if (Result.isSuccess(result)) return result.success;
  throw new ApiError("invalid_body", "invalid body", fieldErrors(result.failure.issue));
}
