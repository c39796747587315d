// See https://svelte.dev/docs/kit/types#app.d.ts
declare global {
  namespace App {
    interface Locals {
      /** Set by hooks.server.ts when a no-JavaScript sign-in failed: the gateway's status and message. */
      loginFailure?: { status: number; error: string; retryAfter: number | null; email: string };
    }
  }
}
export {};
