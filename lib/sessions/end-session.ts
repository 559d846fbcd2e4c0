import { getSql } from "@/db";

/** Sign-out: the session's row goes, so its cookie opens nothing afterwards. */
export async function endSession(sessionId: string): Promise<void> {
  await getSql()`delete from sessions where id = ${sessionId}`;
}
