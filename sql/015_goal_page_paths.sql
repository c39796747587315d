-- Page-path goals, Plausible's second kind of goal: a visit to a page whose path matches `page_path` (with
-- Plausible's wildcards: `*` any characters but `/`, `**` any characters) converts. Its name is Plausible's
-- display name `Visit <page_path>`, so it shares the goals' one name space (unique per site, at most 120
-- characters: a page path of at most 114). Event-name goals keep page_path null.
alter table goals add column page_path text check (page_path is null or (char_length(page_path) between 1 and 114 and left(page_path, 1) = '/'));
