-- An endpoint's stats and the overview read the counter events not folded yet of their endpoints only; without
-- this, each read scanned every tenant's (a minute of statements: one tenant ingesting hard made every tenant's
-- overview read its events once per endpoint). The table holds about a minute of rows, so a plain build is quick.
CREATE INDEX "delivery_counter_events_endpoint_idx" ON "delivery_counter_events" USING btree ("endpoint_id");