// The raw export's query: a range of whole UTC days.
import { Schema } from "effect";

const Day = Schema.String.check(
  Schema.makeFilter((s: string) => (/^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s)) || "must be a date YYYY-MM-DD"),
);

export const RawExportQuery = Schema.Struct({
  from: Day.annotate({ description: "First UTC day, YYYY-MM-DD." }),
  to: Day.annotate({ description: "Last UTC day (included), YYYY-MM-DD; not before `from`." }),
});
