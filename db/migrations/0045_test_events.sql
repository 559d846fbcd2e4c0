-- A test event (POST /endpoints/{id}/test-event) is a delivery like any other, marked. A constant default:
-- on PostgreSQL 11+ the column is added to every partition without rewriting a row.
ALTER TABLE "deliveries" ADD COLUMN "is_test" boolean DEFAULT false NOT NULL;
