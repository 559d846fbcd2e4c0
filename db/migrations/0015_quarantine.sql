CREATE TABLE "quarantine_heads" (
	"endpoint_id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"last_seq" bigint DEFAULT 0 NOT NULL,
	"stream_bytes" bigint DEFAULT 0 NOT NULL,
	"not_kept" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "quarantined_requests" (
	"endpoint_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"id" text NOT NULL,
	"organization_id" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"reason" text NOT NULL,
	"source_ip" text,
	"size_bytes" integer NOT NULL,
	"stream_offset" bigint NOT NULL,
	"sealed" "bytea" NOT NULL,
	CONSTRAINT "quarantined_requests_endpoint_id_seq_pk" PRIMARY KEY("endpoint_id","seq")
);
--> statement-breakpoint
ALTER TABLE "quarantine_heads" ADD CONSTRAINT "quarantine_heads_endpoint_id_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quarantine_heads" ADD CONSTRAINT "quarantine_heads_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quarantined_requests" ADD CONSTRAINT "quarantined_requests_endpoint_id_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quarantined_requests" ADD CONSTRAINT "quarantined_requests_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "quarantined_requests_organization_id_received_at_index" ON "quarantined_requests" USING btree ("organization_id","received_at");--> statement-breakpoint
-- Sealed bytes are ciphertext: compressing them is wasted work on the refused path.
ALTER TABLE "quarantined_requests" ALTER COLUMN "sealed" SET STORAGE EXTERNAL;--> statement-breakpoint
-- Keeps one refused request in its endpoint's quarantine and trims the oldest past the bounds, in one
-- call (lib/quarantine/quarantine-request.ts). The head row's update comes first: its lock puts the
-- endpoint's writers in line, and each later statement here takes a fresh snapshot (a VOLATILE
-- plpgsql function in READ COMMITTED), so the trim sees every row kept before this one and the
-- endpoint never holds more than p_max_rows rows or p_max_bytes sealed bytes after a commit.
-- Trimming is by position in the endpoint's stream: rows go oldest first, a range of the primary key.
CREATE FUNCTION "quarantine_request"(
	p_id text, p_endpoint_id text, p_organization_id text, p_reason text, p_source_ip text, p_size_bytes integer,
	p_sealed bytea, p_not_kept bigint, p_max_rows integer, p_max_bytes bigint
) RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	v_seq bigint;
	v_end bigint;
	v_keep_from bigint;
BEGIN
	INSERT INTO quarantine_heads AS h (endpoint_id, organization_id, last_seq, stream_bytes, not_kept)
	VALUES (p_endpoint_id, p_organization_id, 1, octet_length(p_sealed), p_not_kept)
	ON CONFLICT (endpoint_id) DO UPDATE
		SET last_seq = h.last_seq + 1, stream_bytes = h.stream_bytes + octet_length(p_sealed), not_kept = h.not_kept + p_not_kept
	RETURNING last_seq, stream_bytes INTO v_seq, v_end;
	INSERT INTO quarantined_requests (endpoint_id, seq, id, organization_id, reason, source_ip, size_bytes, stream_offset, sealed)
	VALUES (p_endpoint_id, v_seq, p_id, p_organization_id, p_reason, p_source_ip, p_size_bytes, v_end - octet_length(p_sealed), p_sealed);
	-- The oldest row whose bytes all lie within the newest p_max_bytes of the stream.
	SELECT q.seq INTO v_keep_from FROM quarantined_requests q
	WHERE q.endpoint_id = p_endpoint_id AND q.stream_offset >= v_end - p_max_bytes
	ORDER BY q.seq LIMIT 1;
	DELETE FROM quarantined_requests q
	WHERE q.endpoint_id = p_endpoint_id AND q.seq < greatest(coalesce(v_keep_from, v_seq + 1), v_seq - p_max_rows + 1);
	RETURN v_seq;
END $$;
