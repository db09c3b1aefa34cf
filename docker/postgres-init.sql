-- Runs once, when the postgres volume is created: the Temporal server's own role.
-- auto-setup creates its databases (temporal, temporal_visibility) with this role.
CREATE ROLE temporal WITH LOGIN PASSWORD 'temporal' CREATEDB;
