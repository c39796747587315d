export * from "./label.ts";
export * from "./csv.ts";
export * from "./duration.ts";
export * from "./blank-label.ts";
