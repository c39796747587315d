-- Least privilege for API keys and an optional ingest credential per site. See gateway/README.md
-- "Authentication" (scopes) and "Ingest" (hit token).

-- `read` keys see every read route, the live stream and the MCP server; `admin` keys may also change sites
-- and goals. Keys made before this migration become `read`: none of them was chosen as a writer.
alter table api_keys add column scope text not null default 'read' check (scope in ('read', 'admin'));

-- SHA-256 of the site's hit token (`svc_hit_` + 43 url-safe characters); null = /api/hit needs no token.
-- The token itself is shown once when it is made and never stored.
alter table sites add column hit_token_hash bytea check (hit_token_hash is null or octet_length(hit_token_hash) = 32);
