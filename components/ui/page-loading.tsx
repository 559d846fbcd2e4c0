// What a dashboard page shows at once while its data loads (a slow query, a slow network), instead of
// the previous page staying put as if the click did nothing. Used by the loading.tsx of pages that
// never answer 404: a page under a loading boundary streams, and its status is sent (200) before its
// data is read, so the [id] pages, whose 404 for another organization's ids matters, have none.
export function PageLoading() {
  return (
    <div role="status" aria-live="polite" className="space-y-4">
      <p className="text-sm text-slate-600">Loading…</p>
      <div className="h-24 animate-pulse rounded-lg bg-slate-200/60" aria-hidden="true" />
      <div className="h-48 animate-pulse rounded-lg bg-slate-200/60" aria-hidden="true" />
    </div>
  );
}
