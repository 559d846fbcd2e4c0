// graphile-worker's crontab for the worker's run() (https://worker.graphile.org/docs/cron).
// check-alerts: every minute, one attempt per tick (the next tick is the retry), no backfill after downtime.
// rescue-deliveries: every minute, the safety net for deliveries that lost their job (lib/delivery).
// roll-up-delivery-counters: every minute, keeps the table /api/metrics reads its counters from small (lib/metrics).
// apply-retention: every minute, a bounded run of the retention sweep (lib/retention).
// index-bodies: every minute, restarts the chain of passes that makes stored bodies searchable, if it broke (lib/delivery/index-bodies.ts).
// delivery-partitions: every hour, at 17 past, makes the weekly delivery partitions ahead and refreshes the organizations' delivery id floors (lib/storage).
// vacuum-own-tables: every minute, vacuums and analyses our tables where the server's autovacuum does not (lib/maintenance).
export const crontab = [
  "* * * * * check-alerts ?max=1",
  "* * * * * rescue-deliveries ?max=1",
  "* * * * * roll-up-delivery-counters ?max=1",
  "* * * * * apply-retention ?max=1",
  "* * * * * vacuum-own-tables ?max=1",
  "* * * * * index-bodies ?max=1",
  "17 * * * * delivery-partitions ?max=1",
].join("\n");
