import { TypeToConfirmForm } from "@/components/ui/type-to-confirm-form";
import type { FormState } from "@/lib/auth/form-action";

type Action = (state: FormState, form: FormData) => Promise<FormState>;

/** Deleting takes the endpoint's deliveries with it, so the name must be typed first. */
export function DeleteEndpointForm({ action, endpointId, name }: { action: Action; endpointId: string; name: string }) {
  return (
    <TypeToConfirmForm action={action} name={name} label="Delete endpoint" submitText="Delete endpoint">
      <input type="hidden" name="id" value={endpointId} />
      <p className="text-sm text-slate-700">
        Deleting removes the endpoint and every delivery it holds. Its ingest URL answers 404 from then on. This cannot be undone.
      </p>
    </TypeToConfirmForm>
  );
}
