// The self-hosting files, parsed: docker-compose.yml (services, healthchecks, start order, loopback-only
// ports, no secret with a default), .env.example (every variable, placeholders that the gateway refuses in
// production), the Dockerfile's stages, and the production dependency tree (ws ≥ 8.17.1, no bench-only
// package). `.ci/run` also validates the compose file with `docker compose config` where Docker exists.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CONFIG_VARIABLES, ConfigInvalid, loadConfig } from "../src/config.ts";
import { clientIp } from "../src/ingest/client-ip.ts";
import { repoRoot } from "../src/repo-root.ts";
import { HAPROXY_503, haproxyConfig } from "../src/cluster/local-cluster.ts";

const read = (file: string) => fs.readFileSync(path.join(repoRoot, file), "utf8");
const composeText = read("docker-compose.yml");
const compose = parse(composeText) as { services: Record<string, any>; volumes?: Record<string, unknown> };
const envExample = read(".env.example");
/** NAME=value lines of .env.example, commented-out ones included (`# NAME=value` documents an optional one). */
const exampleValues = new Map([...envExample.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
/** Every `${NAME…}` reference of the compose file, with what follows the name (`:?message`, `:-default`, ``). */
const references = [...composeText.matchAll(/\$\{([A-Z][A-Z0-9_]*)([^}]*)\}/g)].map((m) => ({ name: m[1]!, rest: m[2]! }));
const SECRET = /PASSWORD|SECRET|API_KEY/;

describe("docker-compose.yml", () => {
  it("has a cluster profile: two more gateways with the gateway's settings (SVC_CLUSTER) and HAProxy with the tested config", () => {
    const profile = Object.entries(compose.services).filter(([, service]) => service.profiles?.includes("cluster"));
    expect(profile.map(([name]) => name).sort()).toEqual(["gateway2", "gateway3", "haproxy"]);
    for (const name of ["gateway2", "gateway3"]) {
      expect(compose.services[name].environment).toEqual(compose.services["gateway"].environment);
      expect(compose.services[name].build).toEqual({ context: ".", target: "gateway" });
    }
    expect(compose.services["gateway"].environment.SVC_CLUSTER).toBe("${SVC_CLUSTER:-false}");
    expect(compose.services["haproxy"].ports).toEqual(["127.0.0.1:${SVC_HAPROXY_PORT:-8088}:8080"]);
    const backends = ["gateway", "gateway2", "gateway3"].map((service, i) => ({ name: `gw${i + 1}`, address: `${service}:8080` }));
    const expected = haproxyConfig({ bind: "*:8080", errorFile: "/usr/local/etc/haproxy/503.http", dockerDns: true, backends });
    expect(read("haproxy/haproxy.cfg").replace(/^#.*\n/, "")).toBe(expected);
    expect(read("haproxy/503.http")).toBe(HAPROXY_503);
  });

  it("runs PostgreSQL (with a volume), the gateway and the dashboard, each with a healthcheck", () => {
    const always = Object.entries(compose.services).filter(([, service]) => service.profiles === undefined);
    expect(always.map(([name]) => name).sort()).toEqual(["dashboard", "gateway", "postgres"]);
    expect(compose.services["postgres"].volumes).toEqual(["pgdata:/var/lib/postgresql/data"]);
    expect(compose.volumes).toHaveProperty("pgdata");
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.healthcheck?.test, name).toBeDefined();
      expect(service.restart, name).toBe("unless-stopped");
    }
    expect(compose.services["gateway"].build).toEqual({ context: ".", target: "gateway" });
    expect(compose.services["dashboard"].build).toEqual({ context: ".", target: "dashboard" });
  });

  it("trusts the dashboard's fixed address for X-Forwarded-For by default, and nothing else", () => {
    const address = compose.services["dashboard"].networks.default.ipv4_address as string;
    const subnet = (compose as any).networks.default.ipam.config[0].subnet as string;
    expect(subnet).toBe("172.31.251.0/24");
    expect(address.startsWith("172.31.251.")).toBe(true);
    expect(compose.services["gateway"].environment.SVC_TRUST_PROXY).toBe(`\${SVC_TRUST_PROXY:-${address}}`);
    // The published port's peer is the network's gateway (.1): a browser reaching :8080 directly is not trusted.
    const trust = loadConfig({ SVC_TRUST_PROXY: address }).trustProxy;
    expect(clientIp(address, "203.0.113.7", trust)).toBe("203.0.113.7");
    expect(clientIp("172.31.251.1", "203.0.113.7", trust)).toBe("172.31.251.1");
  });

  it("starts each service once what it needs is healthy", () => {
    expect(compose.services["gateway"].depends_on).toEqual({ postgres: { condition: "service_healthy" } });
    expect(compose.services["dashboard"].depends_on).toEqual({ gateway: { condition: "service_healthy" } });
    expect(compose.services["dashboard"].environment.SVC_API_URL).toBe("http://gateway:8080");
    expect(compose.services["gateway"].environment.DATABASE_URL).toMatch(/@postgres:5432\/svc$/);
  });

  it("publishes the gateway (:8080) and the dashboard (:3000) on 127.0.0.1 only, PostgreSQL not at all", () => {
    expect(compose.services["postgres"].ports).toBeUndefined();
    expect(compose.services["gateway"].ports).toEqual(["127.0.0.1:${SVC_GATEWAY_PORT:-8080}:8080"]);
    expect(compose.services["dashboard"].ports).toEqual(["127.0.0.1:${SVC_DASHBOARD_PORT:-3000}:3000"]);
  });

  it("gives no secret a default: the required ones stop `up` when missing, optional API keys default to empty", () => {
    const secrets = references.filter((r) => SECRET.test(r.name));
    expect(new Set(secrets.map((r) => r.name))).toEqual(
      new Set(["POSTGRES_PASSWORD", "SVC_ADMIN_PASSWORD", "SVC_JWT_SECRET", "SVC_OPENAI_API_KEY", "SVC_ANTHROPIC_API_KEY", "SVC_GEMINI_API_KEY"]),
    );
    for (const r of secrets) expect(r.rest === "" ? "no default" : r.rest, r.name).toMatch(/^(:\?.+|:-)$/);
    for (const name of ["POSTGRES_PASSWORD", "SVC_ADMIN_PASSWORD", "SVC_JWT_SECRET", "SVC_ADMIN_EMAIL"]) {
      expect(references.filter((r) => r.name === name).every((r) => r.rest.startsWith(":?")), name).toBe(true);
    }
    // Nothing secret is written into the file itself either.
    for (const service of Object.values(compose.services)) {
      for (const [name, value] of Object.entries(service.environment ?? {})) {
        if (SECRET.test(name)) expect(String(value), name).toMatch(/^\$\{/);
      }
    }
  });
});

describe(".env.example", () => {
  it("lists every variable the compose file and the gateway read, and the gateway README documents them", () => {
    const readme = read("gateway/README.md");
    for (const name of new Set([...references.map((r) => r.name), ...CONFIG_VARIABLES])) {
      expect(exampleValues.has(name), `${name} in .env.example`).toBe(true);
    }
    for (const name of CONFIG_VARIABLES) expect(readme, `${name} in gateway/README.md`).toContain(`\`${name}\``);
  });

  it("calls out its placeholders, and the gateway refuses them in production (the image's NODE_ENV)", () => {
    for (const name of ["POSTGRES_PASSWORD", "SVC_ADMIN_PASSWORD", "SVC_JWT_SECRET"]) expect(exampleValues.get(name), name).toMatch(/^CHANGE-ME/);
    const env = Object.fromEntries([...exampleValues].filter(([name]) => name.startsWith("SVC_")));
    let problems: readonly string[] = [];
    try {
      loadConfig({ ...env, NODE_ENV: "production", SVC_HOST: "0.0.0.0" });
    } catch (error) {
      if (error instanceof ConfigInvalid) problems = error.problems;
    }
    expect(problems.some((p) => p.startsWith("SVC_ADMIN_PASSWORD is still"))).toBe(true);
    expect(problems.some((p) => p.startsWith("SVC_JWT_SECRET is still"))).toBe(true);
    // With the placeholders replaced, the rest of the example is a valid configuration as it stands.
    expect(() => loadConfig({ ...env, NODE_ENV: "production", SVC_ADMIN_PASSWORD: "a-real-password", SVC_JWT_SECRET: "r".repeat(40) })).not.toThrow();
  });
});

describe("Dockerfile", () => {
  const dockerfile = read("Dockerfile");
  it("builds with dev dependencies, runs production dependencies only, as user node, with a healthcheck per image", () => {
    const stages = [...dockerfile.matchAll(/^FROM (\S+) AS (\S+)$/gm)].map((m) => `${m[1]} AS ${m[2]}`);
    expect(stages).toEqual(["node:20-bookworm-slim AS build", "node:20-bookworm-slim AS runtime", "runtime AS gateway", "runtime AS dashboard"]);
    const stage = (name: string) => dockerfile.split(/^FROM /m).find((s) => s.includes(` AS ${name}\n`))!;
    expect(stage("build")).toMatch(/^RUN npm ci --no-audit --no-fund$/m);
    expect(stage("runtime")).toMatch(/^RUN npm ci --omit=dev /m);
    expect(stage("runtime")).toMatch(/^ENV NODE_ENV=production$/m);
    for (const name of ["gateway", "dashboard"]) {
      expect(stage(name)).toMatch(/^USER node$/m);
      expect(stage(name)).toMatch(/^HEALTHCHECK /m);
      expect(stage(name)).toMatch(/^COPY --from=build /m);
    }
    expect(read(".dockerignore").split("\n")).toEqual(expect.arrayContaining(["**/node_modules", ".env", ".git"]));
  });
});

describe("the production dependency tree", () => {
  const lock = JSON.parse(read("package-lock.json")) as { packages: Record<string, { version?: string; dev?: boolean }> };
  const entries = Object.entries(lock.packages);
  it("has ws ≥ 8.17.1 everywhere (CVE-2024-37890: a request with many headers crashes a ws server)", () => {
    const versions = entries.filter(([key]) => key.endsWith("node_modules/ws")).map(([, p]) => p.version!);
    expect(versions.length).toBeGreaterThan(0);
    for (const v of versions) {
      const [major, minor, patch] = v.split(".").map(Number) as [number, number, number];
      expect(major > 8 || (major === 8 && (minor > 17 || (minor === 17 && patch >= 1))), v).toBe(true);
    }
  });

  it("holds no benchmark-only package (they are dev dependencies, left out by npm ci --omit=dev)", () => {
    // pg-copy-streams left this list: the gateway's raw export streams COPY TO through it (storage/raw-export.ts).
    for (const name of ["autocannon"]) {
      const found = entries.filter(([key]) => key.endsWith(`node_modules/${name}`));
      expect(found.length, name).toBeGreaterThan(0);
      for (const [, p] of found) expect(p.dev, name).toBe(true);
    }
  });
});
