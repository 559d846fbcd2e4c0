"use server";
// The filter editor's Preview: which of the endpoint's newest stored requests the filter typed would match. It
// changes nothing, so reading is enough; it answers ids, event types and times, never a body.
import { requireActionCtx } from "@/lib/auth/dashboard-ctx";
import type { FilterPreviewState } from "@/components/destinations/filter-editor";
import { runFormAction } from "@/lib/auth/form-action";
import { filterFromText } from "@/lib/destinations/destination-form";
import { previewFilter } from "@/lib/search/preview-filter";
import { idOrNotFound } from "@/lib/ids";

/** Called by the editor with its form's data (not as the form's action: saving is). */
export async function previewFilterAction(renderedFor: string, form: FormData): Promise<FilterPreviewState> {
  return runFormAction(async () => {
    const ctx = await requireActionCtx(renderedFor, "read");
    const endpointId = idOrNotFound("ep", form.get("endpointId"), "Endpoint");
    const preview = await previewFilter({ ctx, input: { endpointId, filter: filterFromText(String(form.get("filter") ?? "")) } });
    return { ok: true, preview };
  });
}
