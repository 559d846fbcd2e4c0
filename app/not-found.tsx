// Any unknown path, and every notFound() of a page: says so, and offers the way back.
import Link from "next/link";

export const metadata = { title: "Not found · Webhook Inbox" };

export default function NotFound() {
  return (
    <main className="flex min-h-screen items-center justify-center p-6">
      <div className="w-full max-w-sm space-y-3 rounded-lg bg-white p-6 text-center shadow-sm ring-1 ring-slate-200">
        <h1 className="text-lg font-semibold">Page not found (404)</h1>
        <p className="text-sm text-slate-600">This page does not exist, or it belongs to another organization.</p>
        <Link href="/overview" className="inline-block text-sm font-medium text-indigo-700 underline">
          Back to the overview
        </Link>
      </div>
    </main>
  );
}
