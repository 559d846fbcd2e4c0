-- endpoint_slots splits each endpoint's count of attempts in flight into shards (by claiming job).
-- Existing rows keep their count in shard 0; the worker's per-minute recount spreads it out.
ALTER TABLE "endpoint_slots" DROP CONSTRAINT "endpoint_slots_pkey";--> statement-breakpoint
ALTER TABLE "endpoint_slots" ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "endpoint_slots" ALTER COLUMN "shard" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "endpoint_slots" ADD CONSTRAINT "endpoint_slots_endpoint_id_shard_pk" PRIMARY KEY("endpoint_id","shard");
