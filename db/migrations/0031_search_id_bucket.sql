-- btree_gin: GIN operator classes for plain types, so that the body's trigram index can also hold the time
-- part of each delivery id (db/online-indexes.ts, delivery_payloads_body_by_time_trgm_idx). A search then asks
-- it for the bodies of a stretch of time holding q, and PostgreSQL ANDs the two inside the index instead of
-- fetching every body of the organization that holds q (lib/delivery/search-deliveries.ts, indexedMatches).
-- Trusted (PostgreSQL 13+): a database owner may create it, as pg_trgm (0004). The index itself is built online.
CREATE EXTENSION IF NOT EXISTS btree_gin;
