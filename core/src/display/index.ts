export * from "./label.ts";
export * from "./csv.ts";
