// Array parameters in PostgreSQL's array input syntax, written here rather than by node-postgres: its `arrayString`
// runs every element through `prepareValue` and two regex replaces, numbers included. The rollup flush sends 18
// arrays of ~1,585 elements a second under the bench's load, and that encoding was about half of the flush's
// synchronous turn (12–19 ms each second, the event loop's longest regular stall; gateway/README.md "Seventh pass").

const QUOTE_OR_BACKSLASH = /["\\]/;
const QUOTES_AND_BACKSLASHES = /["\\]/g;

/** `{"a","b\"c"}`: every element quoted (so empty strings, spaces, commas, braces and `NULL` stay text), `"` and `\` escaped. */
export function textArray(values: readonly string[]): string {
  let out = "{";
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    out += (i === 0 ? '"' : ',"') + (QUOTE_OR_BACKSLASH.test(value) ? value.replace(QUOTES_AND_BACKSLASHES, "\\$&") : value) + '"';
  }
  return out + "}";
}

/**
 * `{1,2,3}`: each number as `String` writes it, as node-postgres sent it. One PostgreSQL cannot take (a count past
 * bigint, NaN) fails the statement's cast with its SQLSTATE (22003, 22P02), so the flush's bisection leaves that
 * key out as before.
 */
export function numberArray(values: readonly number[]): string {
  return `{${values.join(",")}}`;
}
