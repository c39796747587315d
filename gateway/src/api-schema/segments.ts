// Saved segments (routes/segments.ts): a name and Plausible Stats API v2 filters, shared by the site's team.
import { Schema } from "effect";
import { isNotBlank, isStorableName } from "./common.ts";
import { Filters } from "./shares.ts";

// 120 characters, as a goal's name: a segment is picked from a list by its name.
export const MAX_SEGMENT_NAME = 120;

export const CreateSegment = Schema.Struct({
  name: Schema.String.check(
    isNotBlank,
    Schema.isMaxLength(MAX_SEGMENT_NAME, { message: `must be at most ${MAX_SEGMENT_NAME} characters` }),
    isStorableName,
  ).annotate({ message: "must be a string", description: "The segment's name, unique per site." }),
  filters: Filters.annotate({
    description: "Plausible Stats API v2 filters, as POST /api/v2/query takes them (checked by its parser: a 400 names the field), at least one. Example: [[\"is\", \"visit:source\", [\"Google\"]]].",
  }),
}).annotate({ identifier: "CreateSegment", message: "must be a JSON object {name, filters}" });

export const Segment = Schema.Struct({
  id: Schema.Int,
  site_id: Schema.Int,
  name: Schema.String,
  filters: Schema.Array(Schema.Unknown),
  created_at: Schema.String,
}).annotate({ identifier: "Segment" });

export const SegmentList = Schema.Struct({ segments: Schema.Array(Segment) }).annotate({ identifier: "SegmentList" });
