// Seeds settled deliveries the retention sweep will find expired, in SQL (INSERT … SELECT
// generate_series): `count` deliveries of one endpoint last changed between `oldestDays` and
// `newestDays` ago, in time order as ingest writes them, 97 % delivered and 3 % dead, ~400-byte JSON
// bodies; one in four has an attempt, one in forty three; each with its dedupe key. Ids are `idPrefix`
// (14 characters: "dlv_" and 10 more; by default ten zeros, the legacy partition) and 15 hex digits of
// a counter, so a prefix from timeOrderedIdFloor puts them all in that week's partition. The secondary indexes of deliveries and
// attempts are dropped for the load and rebuilt from their own definitions afterwards (far faster than
// row by row; the trigram index on bodies most of all): the end state is the migrated one.
import type postgres from "postgres";

const CHUNK = 250_000;

async function secondaryIndexes(sql: postgres.Sql): Promise<{ name: string; definition: string }[]> {
  return (await sql.unsafe(`
    -- A partitioned table's index reads ON ONLY: rebuilt without it, so that every partition gets its copy.
    select i.relname as name, replace(pg_get_indexdef(i.oid), ' ON ONLY ', ' ON ') as definition
    from pg_index x join pg_class i on i.oid = x.indexrelid
    where x.indrelid in ('deliveries'::regclass, 'delivery_payloads'::regclass, 'attempts'::regclass) and not x.indisprimary and not x.indisunique
    order by i.relname`)) as unknown as { name: string; definition: string }[];
}

export async function seedSettledDeliveries(
  sql: postgres.Sql,
  input: { organizationId: string; endpointId: string; count: number; oldestDays: number; newestDays: number; idPrefix?: string; log: (line: string) => void },
): Promise<{ attempts: number }> {
  const idPrefix = input.idPrefix ?? "dlv_0000000000";
  if (idPrefix.length !== 14) throw new Error(`idPrefix must be 14 characters: ${idPrefix}`);
  const started = performance.now();
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;
  const spanSeconds = (input.oldestDays - input.newestDays) * 86_400;
  const indexes = await secondaryIndexes(sql);
  for (const { name } of indexes) await sql.unsafe(`drop index "${name}"`);
  let attempts = 0;
  for (let from = 1; from <= input.count; from += CHUNK) {
    const to = Math.min(input.count, from + CHUNK - 1);
    await sql`
      with src (id, organization_id, endpoint_id, external_id, event_type, status, headers, body, size_bytes,
        received_at, updated_at, delivered_at, attempt_count, auto_attempt_count, last_status_code, last_error) as materialized (
      select ${idPrefix} || lpad(to_hex(n), 15, '0'), ${input.organizationId}, ${input.endpointId}, ${idPrefix} || 'evt_seed_' || n, 'order.updated',
        case when n % 33 = 0 then 'dead' else 'delivered' end,
        '{"content-type": "application/json", "user-agent": "Seeder/1.0"}'::jsonb, b.body, length(b.body),
        t.at - interval '2 seconds', t.at, case when n % 33 = 0 then null else t.at end,
        a.k, a.k, case when n % 33 = 0 then 500 else 200 end, case when n % 33 = 0 then 'HTTP 500' end
      from generate_series(${from}::int, ${to}::int) n
      cross join lateral (select now() - make_interval(days => ${input.oldestDays}) + make_interval(secs => ${spanSeconds}::float8 * n / ${input.count}) as at) t
      cross join lateral (select convert_to(json_build_object('id', 'evt_seed_' || n, 'type', 'order.updated', 'data', json_build_object(
        'order', n, 'customer', 'customer-' || (n % 5000) || '@example.com',
        'note', 'Order updated: items shipped from the central warehouse; tracking number issued, invoice attached.',
        'lines', json_build_array(json_build_object('sku', 'SKU-' || (n % 997), 'qty', 1 + n % 4), json_build_object('sku', 'SKU-' || (n % 991), 'qty', 1))
      ))::text, 'UTF8') as body) b
      cross join lateral (select case when n % 40 = 0 then 3 when n % 4 = 0 then 1 else 0 end as k) a
      ), inserted as (
        insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, event_type, status, size_bytes,
          received_at, updated_at, delivered_at, attempt_count, auto_attempt_count, last_status_code, last_error)
        select id, organization_id, endpoint_id, 'dst_' || substr(endpoint_id, 4), external_id, event_type, status, size_bytes,
          received_at, updated_at, delivered_at, attempt_count, auto_attempt_count, last_status_code, last_error
        from src
      )
      , keyed as (insert into delivery_keys (endpoint_id, external_id, delivery_id) select endpoint_id, external_id, id from src)
      -- Searchable: old history, long since taken by the body indexer (lib/search/index-bodies.ts).
      insert into delivery_payloads (delivery_id, organization_id, headers, body, searchable) select id, organization_id, headers, body, true from src`;
    const [row] = await sql<{ n: number }[]>`
      with added as (
        insert into attempts (organization_id, delivery_id, number, trigger, started_at, duration_ms, status_code)
        select ${input.organizationId}, ${idPrefix} || lpad(to_hex(n), 15, '0'), k, 'auto', now() - make_interval(days => ${input.oldestDays}), 40, 200
        from generate_series(${from}::int, ${to}::int) n
        cross join lateral generate_series(1, case when n % 40 = 0 then 3 when n % 4 = 0 then 1 else 0 end) k
        returning 1)
      select count(*)::int as n from added`;
    attempts += row!.n;
    input.log(`  seeded ${to.toLocaleString("en")} deliveries (${elapsed()})`);
  }
  await sql.unsafe(`set maintenance_work_mem = '512MB'`);
  for (const { definition } of indexes) await sql.unsafe(definition);
  input.log(`  indexes rebuilt (${elapsed()})`);
  await sql.unsafe(`vacuum analyze deliveries`);
  await sql.unsafe(`vacuum analyze delivery_payloads`);
  await sql.unsafe(`vacuum analyze attempts`);
  input.log(`  vacuumed (${elapsed()})`);
  return { attempts };
}
