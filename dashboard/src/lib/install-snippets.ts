// What a site owner pastes: the script tag for pages, and one middleware snippet per server stack (the
// adapters' README shows each in full), with the site's domain and this gateway's public URL filled in.
// Values are inserted with JSON.stringify, so a domain can never break out of its string literal.
export interface Snippet {
  readonly id: string;
  readonly title: string;
  readonly language: string;
  readonly code: string;
}

export function installSnippets(domain: string, gateway: string): Snippet[] {
  const base = gateway.replace(/\/+$/, "");
  const hit = JSON.stringify(`${base}/api/hit`);
  const d = JSON.stringify(domain);
  const attr = (value: string) => value.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
  return [
    {
      id: "script",
      title: "Script tag (every page, in <head>)",
      language: "html",
      code: `<script defer data-domain="${attr(domain)}" src="${attr(base)}/js/svc.js"></script>`,
    },
    {
      id: "express",
      title: "Express / connect",
      language: "ts",
      code: `import { svc } from "@svc/adapters/express";\n\napp.use(svc({ endpoint: ${hit}, domain: ${d} })); // first, to see every request`,
    },
    {
      id: "hono",
      title: "Hono",
      language: "ts",
      code: `import { svc } from "@svc/adapters/hono";\n\napp.use(svc({ endpoint: ${hit}, domain: ${d} }));`,
    },
    {
      id: "next",
      title: "Next-style middleware",
      language: "ts",
      code: `// middleware.ts\nimport { svc } from "@svc/adapters/next";\n\nexport const middleware = svc({ endpoint: ${hit}, domain: ${d} });`,
    },
    {
      id: "worker",
      title: "Edge worker",
      language: "ts",
      code: `import { withSvc } from "@svc/adapters/worker";\n\nexport default withSvc(\n  { async fetch(request, env, ctx) { return new Response("…"); } },\n  { endpoint: ${hit}, domain: ${d} },\n);`,
    },
    {
      id: "node",
      title: "Plain Node http",
      language: "ts",
      code: `import { createServer } from "node:http";\nimport { withSvc } from "@svc/adapters/node";\n\ncreateServer(withSvc((req, res) => res.end("…"), { endpoint: ${hit}, domain: ${d} })).listen(3000);`,
    },
  ];
}
