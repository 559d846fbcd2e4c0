"use client";

// "New destination…": the add form, opened on demand so the endpoint page's own settings form stays the only one shown.
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { DestinationForm, type DestinationFormAction } from "./destination-form";
import type { PreviewAction } from "./filter-editor";

export function AddDestination({ action, previewAction, endpointId }: { action: DestinationFormAction; previewAction: PreviewAction; endpointId: string }) {
  const [open, setOpen] = useState(false);
  if (!open) return <Button type="button" variant="secondary" onClick={() => setOpen(true)}>New destination…</Button>;
  return <DestinationForm action={action} previewAction={previewAction} endpointId={endpointId} onCancel={() => setOpen(false)} />;
}
