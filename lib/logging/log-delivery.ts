// One log line about one delivery, always naming it (in its text and its deliveryId field), so
// `grep dlv_…` tells its whole story. Never pass secrets, bodies or destination URLs into a message
// (the logger strips URL credentials, as a destination's error text may quote its URL).
import { config } from "@/lib/config/config";
import { logger } from "@/lib/logging/logger";

const quiet = () => config().DELIVERY_LOG === "problems";

/** The delivery a line is about: its id always; its endpoint, organization and job where the caller knows them. */
export interface DeliveryLogFields {
  deliveryId: string;
  endpointId?: string;
  destinationId?: string;
  organizationId?: string;
  jobId?: string;
}

/** `level: "info"` lines (successful attempts) are skipped when DELIVERY_LOG=problems; problems are warnings. */
export function logDelivery(about: DeliveryLogFields, message: string, level: "info" | "problem" = "info"): void {
  if (level === "info" && quiet()) return;
  const line = `[deliver] ${about.deliveryId} ${message}`;
  if (level === "problem") logger.warn(about, line);
  else logger.info(about, line);
}
