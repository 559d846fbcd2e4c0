import { TypeToConfirmForm } from "@/components/ui/type-to-confirm-form";
import type { FormState } from "@/lib/auth/form-action";

type Action = (state: FormState, form: FormData) => Promise<FormState>;

/** Deleting takes everything the organization holds, for every member, so its name must be typed first. */
export function DeleteOrganizationForm({ action, name }: { action: Action; name: string }) {
  return (
    <TypeToConfirmForm action={action} name={name} label="Delete organization" submitText="Delete organization">
      <p className="text-sm text-slate-700">
        Deleting ends every member&apos;s access and every API key at once; its endpoints stop receiving and its deliveries,
        settings and history are removed in the background. This cannot be undone.
      </p>
    </TypeToConfirmForm>
  );
}
