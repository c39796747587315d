// Tabs of one browser tell each other about a sign-out (BroadcastChannel, same origin only, nothing stored):
// an open site view in another tab goes to sign-in at once instead of waiting for the gateway's next
// credential check (every 15 s).
const CHANNEL = "svc-session";

export function announceSignOut(): void {
  if (typeof BroadcastChannel === "undefined") return;
  const channel = new BroadcastChannel(CHANNEL);
  channel.postMessage("signed-out");
  channel.close();
}

/** Calls `then` when another tab signs out; returns the unsubscribe. */
export function onSignedOut(then: () => void): () => void {
  if (typeof BroadcastChannel === "undefined") return () => {};
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (event) => {
    if (event.data === "signed-out") then();
  };
  return () => channel.close();
}
