// The storage layer of the gateway: everything that talks to PostgreSQL.
export * from "./database.ts";
export * from "./partitions.ts";
export * from "./rows.ts";
export * from "./salts.ts";
export * from "./sites.ts";
export * from "./site-changes.ts";
export * from "./retention.ts";
export * from "./storage-error.ts";
export { runMigrations } from "./migrations.ts";
