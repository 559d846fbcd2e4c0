// `/`: signed in, the overview; signed out, what Webhook Inbox does, and the way in.
import Link from "next/link";
import { redirect } from "next/navigation";
import { auth } from "@/lib/auth/auth";

export const metadata = { title: "Webhook Inbox — we take custody of your webhooks" };

const FEATURES = [
  ["Nothing lost", "Each webhook is verified (Stripe, GitHub, Shopify, Slack, Svix, Standard Webhooks or your own HMAC) and stored before your provider gets its 200."],
  ["Delivered for you", "We send it on to your service, retrying for hours with backoff while it is down, and say when something waits too long."],
  ["Seen and replayed", "Every request, header and attempt is kept: search them, replay one or a thousand once your service is fixed."],
] as const;

export default async function Home() {
  const session = await auth();
  if (session?.userId && session.sessionId) redirect(session.organizationId ? "/overview" : "/organizations/new");
  return (
    <main className="mx-auto flex min-h-screen max-w-3xl flex-col justify-center gap-8 p-6">
      <div className="space-y-3">
        <p className="font-semibold text-indigo-700">Webhook Inbox</p>
        <h1 className="text-3xl font-bold tracking-tight text-slate-900">We take custody of your webhooks.</h1>
        <p className="text-lg text-slate-700">
          Point your providers at an ingest URL of ours. We check each request&apos;s signature, keep it, and deliver it to your
          service until it is accepted — so a deploy or an outage on your side no longer loses a payment or an order.
        </p>
      </div>
      <ul className="grid gap-4 sm:grid-cols-3">
        {FEATURES.map(([title, text]) => (
          <li key={title} className="rounded-lg bg-white p-4 shadow-sm ring-1 ring-slate-200">
            <h2 className="font-semibold text-slate-900">{title}</h2>
            <p className="mt-1 text-sm text-slate-700">{text}</p>
          </li>
        ))}
      </ul>
      <div className="flex flex-wrap items-center gap-4">
        <Link href="/signup" className="rounded-md bg-indigo-600 px-4 py-2 text-sm font-medium text-white hover:bg-indigo-500">Sign up</Link>
        <Link href="/login" className="text-sm font-medium text-indigo-700 underline">Sign in</Link>
      </div>
    </main>
  );
}
