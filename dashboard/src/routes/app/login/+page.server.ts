// The sign-in form works without JavaScript: hooks.server.ts sends the form to the gateway's login and,
// on failure, leaves the gateway's answer in locals for this action to render with the form.
import { fail } from "@sveltejs/kit";
import type { Actions, PageServerLoad } from "./$types";

export const load: PageServerLoad = ({ url }) => ({
  next: url.searchParams.get("next") ?? "/app",
  sso: url.searchParams.get("sso"),
  // Set by a page whose session ended under it (signed out in another tab, expired): a fixed sentence is
  // shown, never text from the URL.
  ended: url.searchParams.has("ended"),
});

export const actions: Actions = {
  // The request body was read by the hook; what the form needs again comes from locals.
  default: ({ locals }) => {
    const failure = locals.loginFailure ?? { status: 400, error: "invalid body", retryAfter: null, email: "" };
    return fail(failure.status, { error: failure.error, retryAfter: failure.retryAfter, email: failure.email });
  },
};
