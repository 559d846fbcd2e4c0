-- Buried is not failed (#47): a dead delivery says why (dead_reason: 'exhausted', 'rejected' or 'buried'), set by
-- the statement that makes it dead (FINISH in lib/delivery/engine/sql/finish.ts, BURY in lib/delivery/sql/bury.ts)
-- and cleared by a replay. Rows dead before this migration have none; the presenter reads their last error.
-- The overview counts buried deliveries apart, by receipt minute: a signed 'buried' counter event (+1 when one is
-- buried, -1 when it leaves dead), folded only into the per-minute counts as 'buried_by_receipt' (as 'retrying').
--
-- Writes to deliveries wait until this commits, so the counts seeded below are exact.
LOCK TABLE "deliveries" IN SHARE ROW EXCLUSIVE MODE;--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "dead_reason" text;--> statement-breakpoint
CREATE OR REPLACE FUNCTION inbox_count_delivery_outcome() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, destination_id, event, attempts, count, received_minute)
  VALUES (NEW.endpoint_id, NEW.organization_id, NEW.destination_id, NEW.status, NEW.attempt_count, 1, date_trunc('minute', NEW.received_at));
  IF NEW.status = 'dead' AND NEW.dead_reason = 'buried' THEN
    INSERT INTO delivery_counter_events (endpoint_id, organization_id, destination_id, event, attempts, count, received_minute)
    VALUES (NEW.endpoint_id, NEW.organization_id, NEW.destination_id, 'buried', 0, 1, date_trunc('minute', NEW.received_at));
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION inbox_count_settled_left() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, destination_id, event, attempts, count, received_minute)
  VALUES (OLD.endpoint_id, OLD.organization_id, OLD.destination_id, 'no_longer_' || OLD.status, 0, 1, date_trunc('minute', OLD.received_at));
  IF OLD.status = 'dead' AND OLD.dead_reason = 'buried' THEN
    INSERT INTO delivery_counter_events (endpoint_id, organization_id, destination_id, event, attempts, count, received_minute)
    VALUES (OLD.endpoint_id, OLD.organization_id, OLD.destination_id, 'buried', 0, -1, date_trunc('minute', OLD.received_at));
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION inbox_receipt_count(event text, count integer) RETURNS TABLE (counted text, n integer)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT v.counted, v.sign * count FROM (VALUES
    ('received', 'open_by_receipt', 1),
    ('delivered', 'open_by_receipt', -1), ('no_longer_delivered', 'open_by_receipt', 1),
    ('dead', 'open_by_receipt', -1), ('dead', 'dead_by_receipt', 1),
    ('no_longer_dead', 'open_by_receipt', 1), ('no_longer_dead', 'dead_by_receipt', -1),
    ('retrying', 'retrying_by_receipt', 1), ('buried', 'buried_by_receipt', 1)) v(event, counted, sign)
  WHERE v.event = inbox_receipt_count.event
$$;--> statement-breakpoint
-- The overview's window: the last 25 hours' buried deliveries, told by BURY's last error, marked and counted once
-- (a probe of each endpoint's deliveries_endpoint_received_idx). Older ones are only ever read one at a time.
WITH marked AS (
  UPDATE "deliveries" d SET "dead_reason" = 'buried'
  FROM "endpoints" e
  WHERE d.endpoint_id = e.id AND d.received_at >= date_trunc('minute', now()) - interval '25 hours'
    AND d.status = 'dead' AND starts_with(d.last_error, 'buried on request')
  RETURNING d.endpoint_id, d.destination_id, d.received_at
)
INSERT INTO delivery_counts_by_minute (endpoint_id, destination_id, event, minute, count)
SELECT endpoint_id, destination_id, 'buried_by_receipt', date_trunc('minute', received_at), count(*) FROM marked
GROUP BY 1, 2, 3, 4
ORDER BY 2, 3, 4
ON CONFLICT (destination_id, event, minute) DO UPDATE SET count = delivery_counts_by_minute.count + excluded.count;
--> statement-breakpoint
-- Quarantine rows say which event is which (#47): the event type and external id a refused request claims, read
-- at refusal without the secret (lib/signatures identifyRequest) and kept in the clear beside the sealed request:
-- neither is a secret, and never a header or the body. Unverified: shown, never trusted.
ALTER TABLE "quarantined_requests" ADD COLUMN "event_type" text;--> statement-breakpoint
ALTER TABLE "quarantined_requests" ADD COLUMN "external_id" text;--> statement-breakpoint
DROP FUNCTION "quarantine_request"(text, text, text, text, text, integer, bytea, bigint, integer, bigint);--> statement-breakpoint
-- As migration 0015's, with the claimed event type and external id.
CREATE FUNCTION "quarantine_request"(
	p_id text, p_endpoint_id text, p_organization_id text, p_reason text, p_source_ip text, p_size_bytes integer,
	p_sealed bytea, p_not_kept bigint, p_max_rows integer, p_max_bytes bigint, p_event_type text, p_external_id text
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
	INSERT INTO quarantined_requests (endpoint_id, seq, id, organization_id, reason, source_ip, size_bytes, stream_offset, sealed, event_type, external_id)
	VALUES (p_endpoint_id, v_seq, p_id, p_organization_id, p_reason, p_source_ip, p_size_bytes, v_end - octet_length(p_sealed), p_sealed, p_event_type, p_external_id);
	-- The oldest row whose bytes all lie within the newest p_max_bytes of the stream.
	SELECT q.seq INTO v_keep_from FROM quarantined_requests q
	WHERE q.endpoint_id = p_endpoint_id AND q.stream_offset >= v_end - p_max_bytes
	ORDER BY q.seq LIMIT 1;
	DELETE FROM quarantined_requests q
	WHERE q.endpoint_id = p_endpoint_id AND q.seq < greatest(coalesce(v_keep_from, v_seq + 1), v_seq - p_max_rows + 1);
	RETURN v_seq;
END $$;
