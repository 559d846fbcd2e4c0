// One log line about one delivery, always naming it, so `grep dlv_…` tells its whole story.
// Never pass secrets, bodies or destination URLs (they may carry credentials) into a message.
import { stripUrlCredentials } from "@/lib/logging/describe-error";

const quiet = () => process.env.DELIVERY_LOG === "problems";

/** `level: "info"` lines (successful attempts) are skipped when DELIVERY_LOG=problems. */
export function logDelivery(deliveryId: string, message: string, level: "info" | "problem" = "info"): void {
  if (level === "info" && quiet()) return;
  const line = `[deliver] ${deliveryId} ${stripUrlCredentials(message)}`; // a destination's error text may quote its URL
  if (level === "problem") console.error(line);
  else console.log(line);
}
