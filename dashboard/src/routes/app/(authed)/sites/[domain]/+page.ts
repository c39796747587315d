// The window's numbers are fetched by the route itself, in parallel with the sign-in check and before any
// card renders: on a cold load the tiles must not queue behind a dozen breakdown requests (Chromium opens
// six connections per host and the live stream holds one). Only period, days and actor are read, so
// opening a breakdown or typing in its search does not refetch them.
import { error } from "@sveltejs/kit";
import { ApiFailure, api, sitePath } from "$lib/api";
import type { Stats } from "$lib/types";
import { readViewState, windowParam } from "$lib/view-state";

export const load = async ({ params, url, fetch }) => {
  const window = new URLSearchParams();
  for (const key of ["period", "days", "actor"]) {
    const value = url.searchParams.get(key);
    if (value !== null) window.set(key, value);
  }
  const state = readViewState({ search: "", searchParams: window });
  try {
    const stats = await api.get<Stats>(sitePath(params.domain, `/stats?${windowParam(state)}&actor=${state.actor}`), fetch);
    return { stats, statsError: null };
  } catch (failure) {
    // A site this team does not have (unknown, or another team's): a 404 page with the way back, not a
    // dashboard of error cards and a live stream reconnecting forever.
    if (failure instanceof ApiFailure && (failure.status === 404 || failure.status === 403)) {
      error(404, { message: `There is no site ${params.domain} in your team.` });
    }
    return { stats: null, statsError: failure instanceof ApiFailure ? failure.message : "could not load the numbers" };
  }
};
