// Everything behind sign-in renders in the browser from the gateway's API (the numbers are the API's
// numbers); the server only serves the bundle. No credential → the sign-in page, then back here.
import { redirect } from "@sveltejs/kit";
import { ApiFailure, api } from "$lib/api";
import type { Me } from "$lib/types";

export const ssr = false;

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
