-- One attempt row per (delivery, number). Rows a re-run finish or a false "interrupted" record
-- duplicated are removed first: a real outcome is kept over an "interrupted" one, then the oldest.
DELETE FROM "attempts" WHERE "id" IN (
  SELECT "id" FROM (
    SELECT "id", row_number() OVER (
      PARTITION BY "delivery_id", "number"
      ORDER BY coalesce("error" LIKE 'interrupted:%', false), "id"
    ) AS "rank"
    FROM "attempts"
  ) AS "ranked"
  WHERE "rank" > 1
);--> statement-breakpoint
DROP INDEX "attempts_delivery_id_number_index";--> statement-breakpoint
CREATE UNIQUE INDEX "attempts_delivery_id_number_index" ON "attempts" USING btree ("delivery_id","number");
