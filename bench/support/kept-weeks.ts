// A database as it stands once one organization has kept a year: `weeks` weekly partitions before this week's,
// each holding some of that organization's deliveries ("Keeper", retention 365). A fresh database has none
// (its legacy partition holds every id before its migration): the legacy partitions, empty, are bounded
// `weeks` weeks back instead and the weeks between made (inbox_make_delivery_week, migration 0027). Then every
// organization's delivery id floor is refreshed as the hourly job does (lib/storage/delivery-id-floor.ts),
// unless `floors` is "unset": each stays '' and every statement reads every week, as before the floors.
import type postgres from "postgres";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { refreshDeliveryIdFloors } from "@/lib/storage/delivery-id-floor";
import { createOrganizationFixture } from "@/test/fixtures";

export async function keepPastWeeks(sql: postgres.Sql, { weeks, perWeek, floors }: { weeks: number; perWeek: number; floors: "set" | "unset" }): Promise<void> {
  if (weeks > 0) {
    await sql.unsafe(`
      do $$
      declare
        parent text;
        this_monday date := date_trunc('week', now() at time zone 'UTC')::date;
      begin
        foreach parent in array array['deliveries', 'delivery_payloads', 'attempts'] loop
          execute format('alter table %I detach partition %I', parent, parent || '_legacy');
          execute format('alter table %I attach partition %I for values from (minvalue) to (%L)', parent, parent || '_legacy',
            inbox_time_ordered_id_floor('dlv', (this_monday - 7 * ${weeks})::timestamp at time zone 'UTC'));
        end loop;
        for k in 1..${weeks} loop
          perform inbox_make_delivery_week(this_monday - 7 * k);
        end loop;
      end $$`);
    const keeper = await createOrganizationFixture("Keeper");
    await sql`update organizations set retention_days = 365 where id = ${keeper.organizationId}`;
    const endpoint = await createEndpoint({ ctx: keeper.ctx, input: { name: "kept", provider: "none", destinationUrl: "http://127.0.0.1:9/hook" } });
    await sql`
      with src as (
        select g, date_trunc('week', now()) - make_interval(days => 7 * (1 + g / ${perWeek}::int)) + make_interval(secs => 1 + g % ${perWeek}::int) as at
        from generate_series(0, ${weeks * perWeek - 1}) g
      ), d as (
        insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, received_at, updated_at)
        select inbox_time_ordered_id_floor('dlv', at) || lpad(g::text, 15, '0'), ${keeper.organizationId}, ${endpoint.id}, 'dst_' || substr(${endpoint.id}, 4), 'evt_kept_' || g,
          'delivered', 2, at, at
        from src returning id, organization_id
      )
      insert into delivery_payloads (delivery_id, organization_id, headers, body, searchable)
      select id, organization_id, '{}', convert_to('{}', 'UTF8'), true from d`;
  }
  if (floors === "set") await refreshDeliveryIdFloors({ sql });
}
