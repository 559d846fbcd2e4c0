ALTER TABLE "deliveries" DROP CONSTRAINT "deliveries_endpoint_id_endpoints_id_fk";
