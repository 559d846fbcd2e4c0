-- deliveries_endpoint_delivered_idx served only the stats' count of the last hour's delivered, which now comes from
-- the per-minute counts (0023, whose seed read it last). Every delivery that became delivered made an entry.
-- A plain DROP INDEX: it locks deliveries briefly (ARCHITECTURE.md, "Migrations").
DROP INDEX "deliveries_endpoint_delivered_idx";