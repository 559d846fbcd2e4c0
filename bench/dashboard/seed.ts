// Seeds the bench database with deliveries that look like a real tenant mix, in SQL (INSERT … SELECT
// generate_series), so a million rows take about a minute and not an hour of round trips.
//   - organizations with endpoints of very different sizes, one endpoint failing (a pending backlog);
//   - event types per provider, a few common and a long tail;
//   - received_at spread over 30 days, inserted in time order (as ingest does: the table's physical
//     order follows received_at), each id made from its received_at as lib/ids.ts makes them; status by age: old ones delivered (2 % dead), the last hours
//     with some pending/delivering, the failing endpoint's last 2 days mostly pending;
//   - JSON bodies of ~0.6–2 KB built from two paragraphs of a 65,536-word vocabulary drawn with a
//     Zipf-like law (a few words in most bodies, most words rare), a customer e-mail shared by ~5
//     bodies, a unique order id, a little non-ASCII text, capitalised names (Müller in 2 % of the
//     bodies, Zanzibar in 0.004 %, never in lower case); 0.1 % binary (not UTF-8) bodies.
// The rows spread over weekly partitions as ingest's would (a fresh database's legacy partitions hold every id made
// before its migration: they are moved back to the seed's first week, empty). The secondary indexes are dropped
// for the load and rebuilt from their own definitions afterwards, one partition's at a time on each loader
// (faster than maintaining them row by row: keeping the body's trigram index through the load cost ~880 µs a row
// against ~315 to build it after; and PostgreSQL 15 builds a partitioned index one partition after another in
// one backend); the end state is the migrated one.
import { createHash } from "node:crypto";
import type postgres from "postgres";
import { PARTITIONED_DELIVERY_TABLES } from "@/lib/storage/delivery-partitions";

export interface SeedEndpoint {
  id: string;
  organizationId: string;
  /** Share of all deliveries. */
  share: number;
  failing: boolean;
  eventTypes: string[];
  userAgent: string;
}

export const PARAGRAPHS = 20_000;
export const VOCABULARY = 65_536;

/** Letters in roughly English proportions, so the bodies' trigrams are about as varied as real text's. */
const ALPHABET = "eeeeeeeeeeeeeeetttttttttttaaaaaaaaaaoooooooooiiiiiiiiinnnnnnnnnsssssssshhhhhhhrrrrrrrrdddddlllllccccuuuummmwwfffggyypppbbvkjxqz";

/** The k-th word of the vocabulary (k = 0 is the most frequent), spelled as the SQL below spells it. */
export function vocabularyWord(k: number): string {
  const h = createHash("md5").update(`w${k}`).digest();
  let word = "";
  for (let j = 1; j <= 3 + (h[0]! % 8); j++) word += ALPHABET[h[j]! % ALPHABET.length];
  return word + (k % 211 === 0 ? "é" : k % 307 === 0 ? "ß" : "");
}

async function seedVocabulary(sql: postgres.Sql): Promise<void> {
  // Words of 3–10 letters from md5(k); a few with a non-ASCII letter.
  await sql.unsafe(`
    create table bench_words as
    select k, (select string_agg(substr('${ALPHABET}', 1 + get_byte(h, j) % ${ALPHABET.length}, 1), '' order by j)
               from generate_series(1, 3 + get_byte(h, 0) % 8) j)
              || case when k % 211 = 0 then 'é' when k % 307 = 0 then 'ß' else '' end as w
    from generate_series(0, ${VOCABULARY - 1}) k, lateral (select decode(md5('w' || k), 'hex') as h) x`);
  await sql.unsafe(`alter table bench_words add primary key (k)`);
  // Each paragraph: 20–90 words, word rank k drawn with P(k) ∝ 1/(k+1).
  await sql.unsafe(`
    create table bench_paragraphs as
    select p, string_agg(w.w, ' ' order by j) as t
    from (
      select p, j, least(${VOCABULARY - 1}, floor(exp(random() * ln(${VOCABULARY})))::int - 1 + (p * 0)) as k
      from generate_series(0, ${PARAGRAPHS - 1}) p,
           lateral generate_series(1, 20 + abs(hashint4(p)) % 71) j
    ) picks
    join bench_words w using (k)
    group by p`);
  await sql.unsafe(`alter table bench_paragraphs add primary key (p)`);
}

async function seedEndpoints(sql: postgres.Sql, endpoints: SeedEndpoint[]): Promise<void> {
  const total = endpoints.reduce((sum, e) => sum + e.share, 0);
  let lo = 0;
  const rows = endpoints.map((e) => {
    const row = { id: e.id, organization_id: e.organizationId, lo, hi: lo + e.share / total, failing: e.failing, event_types: e.eventTypes, user_agent: e.userAgent };
    lo = row.hi;
    return row;
  });
  rows.at(-1)!.hi = 1.000001;
  await sql.unsafe(`
    create table bench_endpoints as
    select * from json_to_recordset($1::text::json)
      as x(id text, organization_id text, lo float8, hi float8, failing boolean, event_types text[], user_agent text)`, [JSON.stringify(rows)]);
}

async function insertDeliveries(sql: postgres.Sql, from: number, to: number, total: number): Promise<void> {
  await sql.unsafe(`
    -- Each row computed once (random()), then split between the delivery and its payload.
    with src (id, organization_id, endpoint_id, external_id, event_type, status, headers, body, size_bytes,
              source_ip, received_at, attempt_count, auto_attempt_count, last_status_code, last_error,
              next_attempt_at, delivered_at, updated_at, pending_since) as materialized (
    select
      -- A delivery id as lib/ids.ts makes one: its time (base 36), then 15 random base-36 digits.
      'dlv_g' || bench_base36_ms(floor(extract(epoch from x.received_at) * 1000)::bigint) || substr(md5('d' || g.i), 1, 15),
      e.organization_id, e.id, x.external_id, x.event_type, st.status,
      jsonb_build_object('content-type', 'application/json', 'user-agent', e.user_agent, 'webhook-id', x.external_id,
                         'x-request-id', substr(md5('r' || g.i), 1, 16)),
      b.body, octet_length(b.body),
      '203.0.113.' || (g.i % 250), x.received_at,
      st.attempts, st.attempts,
      case st.status when 'delivered' then 200 when 'dead' then (case when r.u_code < 0.3 then 410 else 500 end)
                     when 'pending' then (case when st.attempts > 0 then 503 end) end,
      case st.status when 'dead' then (case when r.u_code < 0.3 then 'HTTP 410 Gone' else 'HTTP 500 after 8 attempts' end)
                     when 'pending' then (case when st.attempts > 0 then 'HTTP 503 Service Unavailable' end) end,
      case when st.status = 'pending' then x.received_at + interval '5 minutes' end,
      case when st.status = 'delivered' then x.received_at + (r.u_code * interval '2 seconds') end,
      x.received_at + interval '1 second', x.received_at
    from generate_series(${from}, ${to}) g(i)
    cross join lateral (
      select random() + g.i * 0 as u_ep, random() + g.i * 0 as u_type,
             random() + g.i * 0 as u_status, random() + g.i * 0 as u_code,
             floor(random() * ${PARAGRAPHS})::int + g.i * 0 as p1, floor(random() * ${PARAGRAPHS})::int + g.i * 0 as p2
    ) r
    join bench_endpoints e on r.u_ep >= e.lo and r.u_ep < e.hi
    cross join lateral (
      select 'evt_' || substr(md5('e' || g.i), 1, 24) as external_id,
             e.event_types[1 + floor(power(r.u_type, 2.5) * array_length(e.event_types, 1))::int] as event_type,
             -- Chronological, as ingest inserts them: row i of n is received (n - i) / n of 30 days ago.
             now() - (${total} - g.i + random()) * (interval '30 days' / ${total}) as received_at
    ) x
    cross join lateral (
      select case
        when e.failing and x.received_at > now() - interval '2 days' then
          case when r.u_status < 0.60 then 'pending' when r.u_status < 0.61 then 'delivering' when r.u_status < 0.75 then 'dead' else 'delivered' end
        when x.received_at > now() - interval '3 hours' then
          case when r.u_status < 0.05 then 'pending' when r.u_status < 0.055 then 'delivering' when r.u_status < 0.065 then 'dead' else 'delivered' end
        else case when r.u_status < 0.02 then 'dead' else 'delivered' end
      end as status
    ) s0
    cross join lateral (
      select s0.status,
        case s0.status
          when 'delivered' then case when r.u_code < 0.9 then 1 when r.u_code < 0.97 then 2 else 3 + floor(r.u_code * 100)::int % 5 end
          when 'dead' then case when r.u_code < 0.3 then 1 else 8 end
          when 'pending' then floor(r.u_code * 6)::int
          else 1 + floor(r.u_code * 3)::int
        end as attempts
    ) st
    cross join lateral (
      select case when g.i % 1000 = 7
        then '\\xfffe00'::bytea || decode(md5('b' || g.i) || md5('c' || g.i), 'hex')
        else convert_to(json_build_object(
          'id', x.external_id, 'type', x.event_type, 'created', floor(extract(epoch from x.received_at))::bigint,
          'livemode', true,
          'data', json_build_object('object', json_build_object(
            'id', 'ord_' || g.i, 'object', split_part(x.event_type, '.', 1),
            'amount', floor(r.u_code * 100000)::int, 'currency', case when g.i % 5 = 0 then 'eur' else 'usd' end,
            'customer', json_build_object(
              'email', 'user' || abs(hashint4(g.i)) % 200000 || '@example.com',
              'name', case when g.i % 50 = 0 then 'Zoë Müller' when g.i % 25000 = 13 then 'Ada Zanzibar'
                           else 'Customer ' || abs(hashint4(g.i)) % 200000 end),
            'description', (select t from bench_paragraphs where p = r.p1),
            'notes', (select t from bench_paragraphs where p = r.p2),
            'metadata', json_build_object('channel', case when g.i % 3 = 0 then 'web' else 'pos' end, 'region', 'eu-' || g.i % 7)
          ))
        )::text, 'UTF8')
      end as body
    ) b
    ), inserted as (
      insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, event_type, status, size_bytes,
                              source_ip, received_at, attempt_count, auto_attempt_count, last_status_code, last_error,
                              next_attempt_at, delivered_at, updated_at, pending_since)
      select id, organization_id, endpoint_id, 'dst_' || substr(endpoint_id, 4), external_id, event_type, status, size_bytes,
             source_ip, received_at, attempt_count, auto_attempt_count, last_status_code, last_error,
             next_attempt_at, delivered_at, updated_at, pending_since
      from src
    )
    -- Searchable: the seed stands for history the body indexer (lib/search/index-bodies.ts) has long since taken.
    insert into delivery_payloads (delivery_id, organization_id, headers, body, searchable) select id, organization_id, headers, body, true from src`);
}

/**
 * Ends the (empty) legacy partitions where the seed's first week begins, and makes every week from then on, as
 * the worker's cron would have made them (inbox_make_delivery_week, migration 0027).
 */
async function makeSeedWeeks(sql: postgres.Sql, days: number): Promise<void> {
  const start = `date_trunc('week', now() at time zone 'UTC' - interval '${days} days')::date`;
  for (const table of PARTITIONED_DELIVERY_TABLES) {
    const weeks = await sql.unsafe<{ name: string }[]>(`
      select c.relname as name from pg_inherits h join pg_class c on c.oid = h.inhrelid
      where h.inhparent = '${table}'::regclass and c.relname ~ '_w[0-9]{8}$'`);
    for (const { name } of weeks) await sql.unsafe(`drop table "${name}"`);
    await sql.unsafe(`alter table ${table} detach partition ${table}_legacy`);
    await sql.unsafe(`alter table ${table} attach partition ${table}_legacy
      for values from (minvalue) to (inbox_time_ordered_id_floor('dlv', ${start}::timestamp at time zone 'UTC'))`);
  }
  await sql.unsafe(`select inbox_make_delivery_week(${start} + 7 * w)
    from generate_series(0, (current_date - ${start}) / 7 + 1) w`);
}

interface IndexBuild { name: string; table: string; definition: string }

/** Secondary indexes of deliveries and delivery_payloads (not the primary keys, not the unique (endpoint, external id)), as SQL. */
async function secondaryIndexDefinitions(sql: postgres.Sql): Promise<IndexBuild[]> {
  return (await sql.unsafe(`
    -- A partitioned table's index reads ON ONLY: made so, invalid until each partition's is attached to it.
    select i.relname as name, t.relname as table, pg_get_indexdef(i.oid) as definition
    from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
    where x.indrelid in ('deliveries'::regclass, 'delivery_payloads'::regclass) and not x.indisprimary and not x.indisunique
    order by i.relname`)) as unknown as IndexBuild[];
}

interface PartitionBuild { index: IndexBuild; partition: string; rows: number; child: string; definition: string }

/** Each index's build on each partition, named as inbox_make_delivery_partition names them; the longest first. */
async function partitionBuilds(sql: postgres.Sql, indexes: IndexBuild[]): Promise<PartitionBuild[]> {
  const builds: PartitionBuild[] = [];
  for (const index of indexes) {
    const partitions = await sql.unsafe<{ name: string; rows: number }[]>(`
      select c.relname as name, c.reltuples::float8 as rows from pg_inherits h join pg_class c on c.oid = h.inhrelid
      where h.inhparent = '${index.table}'::regclass`);
    for (const { name, rows } of partitions) {
      const child = name + index.name.slice(index.table.length);
      const definition = index.definition.replace(/^CREATE INDEX \S+ ON ONLY \S+ /, `CREATE INDEX ${child} ON public.${name} `);
      builds.push({ index, partition: name, rows: Number(rows), child, definition });
    }
  }
  // The word index's builds cost ~10× any other's a row (PostgreSQL 15 builds a GIN index in one backend).
  const cost = (build: PartitionBuild) => Math.max(0, build.rows) * (build.definition.includes(" gin ") ? 10 : 1);
  return builds.sort((a, b) => cost(b) - cost(a));
}

/** The same rows whichever loader takes a chunk: each chunk seeds random() from its own number. */
const chunkSeed = (chunk: number) => (((chunk + 1) * 0.6180339887) % 1) * 1.8 - 0.9;

/** Runs `work` for every item, each loader taking the next item when it is free. */
async function shareOut<T>(loaders: postgres.Sql[], items: T[], work: (sql: postgres.Sql, item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(loaders.map(async (sql) => {
    while (next < items.length) await work(sql, items[next++]!);
  }));
}

/**
 * Seeds `count` deliveries over `endpoints` through `loaders` (connections, each loading a chunk, then
 * building an index, at a time); logs progress with `log`.
 */
export async function seedDeliveries(loaders: postgres.Sql[], endpoints: SeedEndpoint[], count: number, log: (line: string) => void): Promise<void> {
  const started = Date.now();
  const [first] = loaders as [postgres.Sql];
  await first.unsafe("select setseed(0.4242)"); // the same vocabulary every run (one connection, one order of random() calls)
  await seedVocabulary(first);
  // The 9 base-36 digits of a time in ms, as lib/ids.ts writes them in a delivery id.
  await first.unsafe(`create function bench_base36_ms(ms bigint) returns text language sql immutable parallel safe as $$
    select string_agg(substr('0123456789abcdefghijklmnopqrstuvwxyz', ((ms / power(36, k)::bigint) % 36)::int + 1, 1), '' order by k desc)
    from generate_series(0, 8) k $$`);
  await seedEndpoints(first, endpoints);
  await makeSeedWeeks(first, 31);
  const indexes = await secondaryIndexDefinitions(first);
  for (const { name } of indexes) await first.unsafe(`drop index "${name}"`);
  const chunk = 250_000;
  const chunks = Array.from({ length: Math.ceil(count / chunk) }, (_, i) => i);
  let done = 0;
  await shareOut(loaders, chunks, async (sql, i) => {
    await sql.unsafe(`select setseed(${chunkSeed(i)})`);
    await insertDeliveries(sql, i * chunk + 1, Math.min(count, (i + 1) * chunk), count);
    done += Math.min(chunk, count - i * chunk);
    log(`  seeded ${done.toLocaleString("en")} deliveries (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  });
  for (const table of ["deliveries", "delivery_payloads"]) await first.unsafe(`analyze ${table}`); // each partition's rows, to order the builds
  for (const { definition } of indexes) await first.unsafe(definition);
  await shareOut(loaders, await partitionBuilds(first, indexes), async (sql, { index, child, definition }) => {
    const t = Date.now();
    // Bigger than the 1M seed needed: a GIN build spills to the index each time this fills.
    await sql.unsafe(`set maintenance_work_mem = '${definition.includes(" gin ") ? "4GB" : "1GB"}'`);
    await sql.unsafe(definition);
    await sql.unsafe(`alter index "${index.name}" attach partition "${child}"`);
    if (Date.now() - t >= 1000) log(`  rebuilt ${child} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
  });
  log(`  rebuilt ${indexes.length} indexes (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  await first.unsafe(`drop table bench_words, bench_paragraphs, bench_endpoints; drop function bench_base36_ms`);
}
