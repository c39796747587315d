// Fault injection for the supervision tests: a test arms a fault for a component (and for a site lane,
// its site), and the component's loop throws at its next turn, as a bug would. Armed only through the
// in-process `Gateway` handle that `startGateway` returns; no route reaches it.
import type { Component } from "./supervisor.ts";

export class InjectedFault extends Error {
  override readonly name = "InjectedFault";
}

export class FaultInjector {
  private readonly armed = new Set<string>();

  /** The next turn of `component` (of the actor of `siteId`, for site_lane) throws. */
  arm(component: Component, siteId?: number): void {
    this.armed.add(key(component, siteId));
  }

  /** Called by each supervised loop at the point where a crash hurts most: with work in hand. */
  trip(component: Component, siteId?: number): void {
    if (this.armed.size === 0) return;
    if (this.armed.delete(key(component, siteId))) throw new InjectedFault(`injected fault in ${component}`);
  }
}

const key = (component: Component, siteId: number | undefined) => (siteId === undefined ? component : `${component}:${siteId}`);
