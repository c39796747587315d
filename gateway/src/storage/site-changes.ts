// The channel that tells every process about site changes: LISTEN on svc_sites, fed by the trigger of
// sql/002_sites_notify.sql, over a dedicated connection that reconnects on its own. `listenChannels` is the
// same connection for any channels (the cluster's, cluster/peers.ts).
import pg from "pg";

/**
 * One change announced on channel svc_sites by the trigger of sql/002_sites_notify.sql. `resync` is sent
 * after the listener reconnects: notifications of the gap are lost, so a cache should drop everything.
 */
export type SiteChange =
  | { op: "insert" | "update" | "delete"; id: number; old_domain: string | null; new_domain: string | null }
  | { op: "resync" };

export interface SiteChangeListener {
  close(): Promise<void>;
}

const RECONNECT_FIRST_MS = 250;
const RECONNECT_MAX_MS = 5_000;

/**
 * LISTENs on svc_sites over a dedicated connection (a pooled one would be handed to other queries).
 * Resolves once listening; on a lost connection it reconnects with backoff (250 ms doubling to 5 s) and
 * then reports `resync`.
 */
export function listenSiteChanges(
  target: string | pg.Pool,
  onChange: (change: SiteChange) => void,
  opts: { log?: (line: string) => void } = {},
): Promise<SiteChangeListener> {
  const log = opts.log ?? (() => {});
  return listenChannels(
    target,
    ["svc_sites"],
    (_channel, payload) => {
      try {
        onChange(JSON.parse(payload) as SiteChange);
      } catch (error) {
        log(`sites: ignored a malformed svc_sites notification (${(error as Error).message})`);
      }
    },
    { log, onResync: () => onChange({ op: "resync" }) },
  );
}

/** LISTENs on `channels` over a dedicated connection that reconnects by itself, then calls `onResync` (the gap's notifications are lost). */
export async function listenChannels(
  target: string | pg.Pool,
  channels: readonly string[],
  onNotify: (channel: string, payload: string) => void,
  opts: { log?: (line: string) => void; onResync?: () => void } = {},
): Promise<SiteChangeListener> {
  const config: pg.ClientConfig = typeof target === "string" ? { connectionString: target } : { ...target.options };
  const log = opts.log ?? (() => {});
  let closed = false;
  let client: pg.Client | null = null;
  let timer: NodeJS.Timeout | null = null;
  let delay = RECONNECT_FIRST_MS;

  const onNotification = (message: pg.Notification): void => {
    if (message.payload !== undefined && channels.includes(message.channel)) onNotify(message.channel, message.payload);
  };

  const connect = async (): Promise<void> => {
    const next = new pg.Client(config);
    next.on("notification", onNotification);
    next.on("error", () => lost(next));
    next.on("end", () => lost(next));
    try {
      await next.connect();
      for (const channel of channels) await next.query(`listen ${channel}`);
    } catch (error) {
      await next.end().catch(() => undefined);
      throw error;
    }
    if (closed) {
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
  };

  const lost = (which: pg.Client): void => {
    if (closed || client !== which) return;
    client = null;
    which.end().catch(() => undefined);
    log(`database: lost the listener connection of ${channels.join(", ")}; reconnecting`);
    schedule();
  };

  const schedule = (): void => {
    timer = setTimeout(() => {
      timer = null;
      connect().then(
        () => {
          delay = RECONNECT_FIRST_MS;
          if (!closed) opts.onResync?.();
        },
        () => {
          delay = Math.min(delay * 2, RECONNECT_MAX_MS);
          if (!closed) schedule();
        },
      );
    }, delay);
  };

  await connect();
  return {
    close: async () => {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      const current = client;
      client = null;
      if (current !== null) await current.end().catch(() => undefined);
    },
  };
}
