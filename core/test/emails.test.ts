// E-mail addresses are cut out of page URLs, event names, UTM values and hit paths (props are dropped whole
// elsewhere): table-driven over the places an address turns up in real traffic.
import { describe, expect, it } from "vitest";
import { decodeBrowserEvent, decodeServerHits, dropEmailsFromEvent, dropEmailsFromHit, EMAIL_PLACEHOLDER } from "../src/index.ts";

const event = (body: Record<string, unknown>) => {
  const decoded = decodeBrowserEvent({ d: "example.com", u: "https://example.com/", ...body });
  if (!decoded.ok) throw new Error(JSON.stringify(decoded.errors));
  return decoded.value;
};

describe("dropEmailsFromEvent", () => {
  it.each([
    ["a path segment", { u: "https://example.com/users/jane.doe@example.org/settings" }, { u: "https://example.com/users/(email)/settings" }, 1],
    ["a percent-encoded @ in the query", { u: "https://example.com/reset?email=jane%40example.org&x=1" }, { u: "https://example.com/reset?email=(email)&x=1" }, 1],
    ["two addresses in one URL: one field, one drop", { u: "https://example.com/a@b.io/c@d.io" }, { u: "https://example.com/(email)/(email)" }, 1],
    ["the event name", { n: "invite sent to bob@corp.example" }, { n: `invite sent to ${EMAIL_PLACEHOLDER}` }, 1],
    ["a UTM value sent in the body", { utm_source: "newsletter", utm_campaign: "for-jane@example.org" }, { utm: expect.objectContaining({ utm_source: "newsletter", utm_campaign: "(email)" }) }, 1],
    [
      "every UTM value, each its own field and drop",
      { utm_source: "a@example.org", utm_medium: "b@example.org", utm_campaign: "c@example.org", utm_term: "d@example.org", utm_content: "e@example.org" },
      { utm: { utm_source: "(email)", utm_medium: "(email)", utm_campaign: "(email)", utm_term: "(email)", utm_content: "(email)" } },
      5,
    ],
    ["only the last UTM value: the others kept as sent", { utm_medium: "email", utm_content: "footer/jane@example.org" }, { utm: { utm_source: null, utm_medium: "email", utm_campaign: null, utm_term: null, utm_content: "footer/(email)" } }, 1],
    ["a UTM value in the page URL (both the URL and the value)", { u: "https://example.com/?utm_source=jane@example.org" }, { u: "https://example.com/?utm_source=(email)", utm: expect.objectContaining({ utm_source: "(email)" }) }, 2],
    ["nothing to drop: an @handle, a version, a plain page", { u: "https://example.com/@jane/v1.2", n: "Follow @jane" }, { u: "https://example.com/@jane/v1.2", n: "Follow @jane" }, 0],
  ])("%s", (_name, body, expected, dropped) => {
    const result = dropEmailsFromEvent(event(body));
    expect(result.dropped).toBe(dropped);
    expect(result.event).toMatchObject(expected);
    expect(JSON.stringify(result.event)).not.toMatch(/[A-Za-z0-9._%+-]+(@|%40)[A-Za-z0-9-]+\.[A-Za-z]{2,}/);
  });
});

describe("dropEmailsFromHit", () => {
  it.each([
    ["/unsubscribe/jane@example.org", "/unsubscribe/(email)", 1],
    ["/search?q=jane%40example.org", "/search?q=(email)", 1],
    ["/blog/hello-world", "/blog/hello-world", 0],
  ])("%s → %s", (path, expected, dropped) => {
    const decoded = decodeServerHits({ domain: "example.com", method: "GET", path, status: 200, user_agent: "GPTBot", referrer: null, ip: "81.2.69.142" });
    if (!decoded.ok) throw new Error("fixture does not decode");
    const result = dropEmailsFromHit(decoded.value[0]!);
    expect(result).toMatchObject({ hit: { path: expected }, dropped });
  });
});
