// Everything behind sign-in reads the gateway's API (the numbers are the API's numbers). The first page is
// rendered on the server with the same loads (its fetch of /api/… goes through hooks.server.ts with the
// browser's cookie), so the site view's tiles arrive in the HTML instead of after the bundle boots; the
// cards, the live stream and everything after load in the browser. No credential → the sign-in page.
import { redirect } from "@sveltejs/kit";
import { ApiFailure, api } from "$lib/api";
import type { Me } from "$lib/types";

export const load = async ({ fetch, url }) => {
  try {
    const me = await api.get<Me>("/api/auth/me", fetch);
    return { me };
  } catch (error) {
    if (error instanceof ApiFailure && (error.status === 401 || error.status === 403)) {
      redirect(307, `/app/login?next=${encodeURIComponent(url.pathname + url.search)}`);
    }
    throw error;
  }
};
