// Funnels: the definitions a site keeps (2 to 8 ordered steps, each a page-path pattern or a goal) and the
// answer of a funnel over a window — visitors reaching each step within one visit, in order.
import { Schema } from "effect";
import { isNotBlank, isStorableName, WindowEcho, WindowQuery } from "./common.ts";
import { MAX_GOAL_NAME } from "./sites.ts";

// 2 to 8 steps: a funnel of one step is a goal; 8 is Plausible's limit, and every step is one more join (query/funnel.ts).
export const MIN_FUNNEL_STEPS = 2;
export const MAX_FUNNEL_STEPS = 8;
// 300 characters: a page pattern as long as any path a filter clause may name is more than a funnel needs.
export const MAX_STEP_PATH = 300;
// 16 KB: 20 filter leaves of 100 clauses would not fit a URL anyway; a dashboard's filters are a few hundred bytes.
export const MAX_FILTERS_PARAM = 16_384;

const isPath = Schema.makeFilter((s: string) => s.startsWith("/"), { message: "must start with /" });

const FunnelName = Schema.String.check(
  isNotBlank,
  Schema.isMaxLength(MAX_GOAL_NAME, { message: `must be at most ${MAX_GOAL_NAME} characters` }),
  isStorableName,
).annotate({ message: "must be a string", description: `The funnel's name, unique per site (at most ${MAX_GOAL_NAME} characters).` });

// Either field, exactly one: checked by the route so the refusal names the step (`steps[2]`).
export const FunnelStep = Schema.Struct({
  page_path: Schema.optionalKey(Schema.String.check(
    isPath,
    Schema.isMaxLength(MAX_STEP_PATH, { message: `must be at most ${MAX_STEP_PATH} characters` }),
    isStorableName,
  ).annotate({ message: "must be a string", description: "A pageview of a page matching this pattern reaches the step: `*` matches any characters but `/`, `**` any characters; the rest literally, the whole path." })),
  goal: Schema.optionalKey(Schema.String.check(isNotBlank, Schema.isMaxLength(MAX_GOAL_NAME), isStorableName).annotate({
    message: "must be a string",
    description: "The name of one of the site's goals (an event name, or `Visit /path` for a page goal): a row converting that goal reaches the step.",
  })),
}).annotate({ identifier: "FunnelStep", message: "must be an object with page_path or goal" });

const Steps = Schema.Array(FunnelStep)
  .check(
    Schema.isMinLength(MIN_FUNNEL_STEPS, { message: `must have at least ${MIN_FUNNEL_STEPS} steps` }),
    Schema.isMaxLength(MAX_FUNNEL_STEPS, { message: `must have at most ${MAX_FUNNEL_STEPS} steps` }),
  )
  .annotate({ message: "must be an array of steps", description: `${MIN_FUNNEL_STEPS} to ${MAX_FUNNEL_STEPS} steps in order, each {page_path} or {goal}.` });

export const CreateFunnel = Schema.Struct({ name: FunnelName, steps: Steps }).annotate({ identifier: "CreateFunnel", message: "must be a JSON object {name, steps}" });

export const PatchFunnel = Schema.Struct({
  name: Schema.optionalKey(FunnelName),
  steps: Schema.optionalKey(Steps.annotate({ description: "The new steps, replacing all of the old ones." })),
}).annotate({ identifier: "PatchFunnel", message: "must be a JSON object {name?, steps?}" });

const StepOut = Schema.Struct({ page_path: Schema.optionalKey(Schema.String), goal: Schema.optionalKey(Schema.String) });

export const Funnel = Schema.Struct({
  id: Schema.Int,
  site_id: Schema.Int,
  name: Schema.String,
  steps: Schema.Array(StepOut),
  created_at: Schema.String,
  updated_at: Schema.String,
}).annotate({ identifier: "Funnel" });

export const FunnelList = Schema.Struct({ funnels: Schema.Array(Funnel) }).annotate({ identifier: "FunnelList" });

export const FunnelResultQuery = Schema.Struct({
  ...WindowQuery,
  filters: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(MAX_FILTERS_PARAM, { message: `must be at most ${MAX_FILTERS_PARAM} characters` })).annotate({
    message: "must be a JSON array of filters",
    description:
      "A JSON array of Plausible Stats API v2 filters, as POST /api/v2/query takes them (400 naming the field otherwise), e.g. `[[\"is\",\"visit:source\",[\"Google\"]]]`. Rows are filtered as the query API filters them; the funnel is then read from the rows left. `actor` is applied as a visit:actor filter.",
  })),
});

export const FunnelResult = Schema.Struct({
  ...WindowEcho,
  funnel: Funnel,
  date_range: Schema.Array(Schema.String).annotate({ description: "The window as POST /api/v2/query's date_range: the same rows are read." }),
  visitors: Schema.Int.annotate({ description: "Distinct visitors with at least one visit in the window (after filters): the base of conversion_rate." }),
  steps: Schema.Array(Schema.Struct({
    label: Schema.String.annotate({ description: "The page pattern, or `Goal: <name>`." }),
    visitors: Schema.Int.annotate({ description: "Distinct visitors with a visit that reached this step after every earlier one, in order." }),
    conversion_rate: Schema.Number.annotate({ description: "visitors / the first step's visitors × 100, two decimals (100 for the first step; 0 when nobody entered)." }),
    step_conversion_rate: Schema.Number.annotate({ description: "visitors / the previous step's visitors × 100, two decimals (100 for the first step)." }),
    dropoff: Schema.Int.annotate({ description: "The previous step's visitors minus this step's (0 for the first step)." }),
    dropoff_rate: Schema.Number.annotate({ description: "dropoff / the previous step's visitors × 100, two decimals." }),
    goal_missing: Schema.optionalKey(Schema.Boolean.annotate({ description: "true when the step names a goal the site no longer has: nobody reaches it." })),
  })),
}).annotate({ identifier: "FunnelResult" });
