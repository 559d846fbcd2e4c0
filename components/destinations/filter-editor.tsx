"use client";

// A destination's filter box, and its Preview: before anything is saved, which of the endpoint's newest stored
// requests the filter as typed would match (ids, event types and times, links to their pages; never a body).
import Link from "next/link";
import { useId, useState, useTransition } from "react";
import type { FormState } from "@/lib/auth/form-action";
import type { FilterPreview } from "@/lib/search/preview-filter";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { RelativeTime } from "@/components/ui/relative-time";

/** What the Preview action (app/(dashboard)/endpoints/[id]/filter-preview-actions.ts) answers. */
export type FilterPreviewState = FormState<{ preview: FilterPreview }>;
export type PreviewAction = (form: FormData) => Promise<FilterPreviewState>;

const control = "mt-1 block w-full rounded-md border-0 px-2.5 py-1.5 font-mono text-xs ring-1 ring-slate-300 focus:ring-2 focus:ring-indigo-600";
const requests = (n: number) => `${n} ${n === 1 ? "request" : "requests"}`;

/**
 * `shownFor`: what the form around it last answered; a preview is shown only while the form is as it was when the
 * preview was asked for (a save resets the form; typing in the box hides it too).
 */
export function FilterEditor({ defaultValue, previewAction, shownFor }: { defaultValue: string; previewAction: PreviewAction; shownFor: unknown }) {
  const hintId = useId();
  const [previewing, startPreview] = useTransition();
  const [preview, setPreview] = useState<{ state: FilterPreviewState; for: unknown } | null>(null);
  const current = preview && preview.for === shownFor ? preview.state : null;
  return (
    <div className="space-y-2 sm:col-span-2">
      <label className="block text-sm font-medium text-slate-700">
        Filter (JSON)
        <textarea
          name="filter"
          rows={5}
          spellCheck={false}
          defaultValue={defaultValue}
          aria-describedby={hintId}
          onChange={() => setPreview(null)}
          placeholder='{"body": {"type": {"$startsWith": "invoice."}}}'
          className={control}
        />
      </label>
      <p id={hintId} className="text-xs text-slate-500">
        Matched against each request’s <code>body</code>, <code>headers</code>, <code>query</code> and <code>path</code>; plain values match
        exactly, operators such as <code>$startsWith</code>, <code>$gte</code>, <code>$in</code>, <code>$or</code> are listed in the README. Empty: every request.
      </p>
      <Button
        type="button"
        variant="secondary"
        disabled={previewing}
        onClick={(event) => {
          const form = new FormData(event.currentTarget.form!);
          startPreview(async () => {
            const state = await previewAction(form);
            setPreview({ state, for: shownFor });
          });
        }}
      >
        {previewing ? "Previewing…" : "Preview matches"}
      </Button>
      {current?.error ? <Alert>{current.error}</Alert> : null}
      {current?.preview ? <PreviewResult preview={current.preview} /> : null}
    </div>
  );
}

function PreviewResult({ preview }: { preview: NonNullable<FilterPreviewState["preview"]> }) {
  const now = new Date();
  if (preview.considered === 0) {
    return <p role="status" data-testid="filter-preview" className="text-sm text-slate-600">This endpoint has no stored request yet to try the filter on.</p>;
  }
  return (
    <div role="status" data-testid="filter-preview" className="space-y-2 rounded-md bg-slate-50 p-3 text-sm ring-1 ring-slate-200">
      <p className="font-medium" data-testid="filter-preview-count">
        {`${preview.matched.length} of the newest ${requests(preview.examined)} ${preview.matched.length === 1 ? "matches" : "match"}.`}
      </p>
      {preview.examined < preview.considered ? (
        <p className="text-xs text-slate-600">{`Only the newest ${preview.examined} of ${preview.considered} were read: a preview reads a bounded amount of request bodies, and the older ones would pass it.`}</p>
      ) : null}
      {preview.matched.length > 0 ? (
        <ul aria-label="Matching requests" className="max-h-64 divide-y divide-slate-200 overflow-y-auto">
          {preview.matched.map((request) => (
            <li key={request.id} data-testid="filter-preview-match" data-delivery-id={request.id} className="flex flex-wrap items-baseline gap-x-3 py-1 text-xs">
              <Link prefetch={false} href={`/deliveries/${request.id}`} className="font-mono break-all text-indigo-700 hover:underline">{request.eventType ?? request.id}</Link>
              {request.eventType ? <span className="font-mono break-all text-slate-500">{request.id}</span> : null}
              <RelativeTime iso={request.receivedAt} now={now} />
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
