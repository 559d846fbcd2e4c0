// Makes stored bodies searchable: puts them in the body's word index (delivery_payloads_body_by_bucket_words_idx)
// by setting delivery_payloads.searchable; the index finds the words itself (inbox_body_word_vector, migration
// 0048), so no column is filled. Ingest stores every payload unsearchable, so that its statement, shared by every
// organization's requests arriving together, makes no index entry: a body's words are found and entered at a
// cost that grows with its size (a 64 KiB body: tens of times a ~1 KB one's). Here the organizations
// with bodies waiting take turns, in order of id, each turn one statement over at most ROWS_PER_TURN bodies or
// BYTES_PER_TURN bytes of indexed body, so one organization's big bodies delay only its own search index, by
// at most its turns. Until a body is searchable, a search tests it one by one (lib/search/search-deliveries.ts):
// a body not yet indexed is found all the same, only slower.
import type postgres from "postgres";
import { getSql } from "@/db";
import { config, type Config } from "@/lib/config/config";

export interface IndexBodiesSettings {
  /** INDEX_BODIES_ROWS_PER_TURN (200): the most bodies one organization's turn makes searchable. */
  rowsPerTurn: number;
  /** INDEX_BODIES_BYTES_PER_TURN (262,144): a turn stops adding bodies once they hold this many bytes to index (at least one). */
  bytesPerTurn: number;
  /** INDEX_BODIES_RUN_MS (2,000): a pass starts no turn after this long (it takes one at least); the next pass goes on after it. */
  runMs: number;
  /**
   * INDEX_BODIES_BUSY_SHARE (0.25): the most of its time a pass spends in turns; after each it rests for as long
   * as keeps it to this share. The database's CPU is shared too: a flood of big bodies must not have the
   * indexer take it from every organization's ingest and deliveries. Searchability waits; custody does not.
   * bench:neighbours, org A flooding 64 KiB bodies: org B's p50 0.35 s at 0.5, 0.2 s at 0.25 (13 ms with A idle).
   */
  busyShare: number;
}

export function indexBodiesSettings(settings: Config = config()): IndexBodiesSettings {
  return {
    rowsPerTurn: settings.INDEX_BODIES_ROWS_PER_TURN,
    bytesPerTurn: settings.INDEX_BODIES_BYTES_PER_TURN,
    runMs: settings.INDEX_BODIES_RUN_MS,
    busyShare: settings.INDEX_BODIES_BUSY_SHARE,
  };
}

/** Bodies over this size are never in the word index (its predicate); marking them costs no index entry. */
const INDEXED_BODY_MAX_BYTES = 65_536;

export interface IndexBodiesPass {
  /** Bodies made searchable. */
  indexed: number;
  /** Turns taken (one per organization visited with bodies waiting). */
  turns: number;
  /** The last organization served: the next pass starts after it, so every organization gets its turn. */
  after: string;
  /** Bodies may still be waiting: the pass ran out of time (or was stopped). */
  more: boolean;
}

/**
 * The organizations with bodies not searchable yet, after `after` in id order, at most `limit`: one probe of
 * delivery_payloads_unsearchable_idx each (a skip scan), however many bodies each has waiting.
 */
const ORGANIZATIONS_WAITING = `
  with recursive waiting(id) as (
    (select organization_id from delivery_payloads where not searchable and organization_id > $1 order by organization_id limit 1)
    union all
    (select (select organization_id from delivery_payloads where not searchable and organization_id > waiting.id
             order by organization_id limit 1)
     from waiting where waiting.id is not null)
  )
  select id from waiting where id is not null limit $2`;

/**
 * One organization's turn: its bodies waiting, up to $2 of them and, in the order met, while those before hold
 * fewer than $3 bytes to index. Rows another transaction holds (a retention delete) are skipped, not waited for.
 */
const TURN = `
  with waiting as (
    select delivery_id, case when octet_length(body) <= ${INDEXED_BODY_MAX_BYTES} then octet_length(body) else 0 end as bytes
    from delivery_payloads where organization_id = $1 and not searchable
    limit $2 for update skip locked
  ), taken as (
    select delivery_id, sum(bytes) over (rows between unbounded preceding and current row) - bytes as bytes_before from waiting
  )
  update delivery_payloads p set searchable = true
  from taken where p.delivery_id = taken.delivery_id and taken.bytes_before < $3`;

export async function indexBodies(options: {
  sql?: postgres.Sql;
  after?: string;
  settings?: IndexBodiesSettings;
  signal?: AbortSignal;
} = {}): Promise<IndexBodiesPass> {
  const sql = options.sql ?? getSql();
  const settings = options.settings ?? indexBodiesSettings();
  const deadline = performance.now() + settings.runMs;
  const pass: IndexBodiesPass = { indexed: 0, turns: 0, after: options.after ?? "", more: false };
  // A round: every organization after `after`, then (wrapping to the start) every one before it.
  let indexedThisRound = 0;
  let wrapped = false;
  for (;;) {
    const organizations = await sql.unsafe<{ id: string }[]>(ORGANIZATIONS_WAITING, [pass.after, 100]);
    if (organizations.length === 0) {
      // Nothing after the last one served: start again from the first, unless a whole round found nothing.
      if (pass.after === "" || (wrapped && indexedThisRound === 0)) return pass;
      pass.after = "";
      wrapped = true;
      indexedThisRound = 0;
      continue;
    }
    for (const { id } of organizations) {
      // At least one turn a pass, so that a chain of passes always moves on through the organizations.
      if (pass.turns > 0 && (performance.now() >= deadline || options.signal?.aborted)) return { ...pass, more: true };
      const turnStarted = performance.now();
      const result = await sql.unsafe(TURN, [id, settings.rowsPerTurn, settings.bytesPerTurn]);
      await rest(((performance.now() - turnStarted) * (1 - settings.busyShare)) / settings.busyShare, options.signal);
      pass.indexed += result.count;
      indexedThisRound += result.count;
      pass.turns++;
      pass.after = id;
    }
  }
}

function rest(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms < 1 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
