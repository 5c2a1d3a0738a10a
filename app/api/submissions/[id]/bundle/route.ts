/**
 * GET /api/submissions/:id/bundle: a published entry's bundle, so anyone can `verify` it
 * (lib/queries/entry-bundle.ts: which entries, and which sha256 the file answers to). 404 for an
 * entry that is not published, or whose benchmark turns downloads off (`bundleDownload: false`);
 * 410 when the bytes are no longer to be had. The sha256 the entry records is sent in
 * `X-Bundle-Sha256`, with `X-Bundle-Kind` saying whether it is the file's (`zip`) or the unzipped
 * folder's (`folder`). Never kept by shared caches: a withdrawal takes effect at once.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import { parseId } from "@/components/common/search-params";
import { pageDb } from "@/lib/queries/db";
import { entryBundle } from "@/lib/queries/entry-bundle";
import { bundleDownload } from "@/lib/submissions/bundle-download";
import { BundleLostError } from "@/lib/submissions/bundle-storage";
import { hostedStorageFromEnv } from "@/lib/submissions/storage-settings";

export const dynamic = "force-dynamic";

const noStore = { "Cache-Control": "no-store" };

export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  const id = parseId((await params).id);
  const bundle = id === null ? null : await entryBundle(await pageDb(), id);
  if (!bundle) return Response.json({ error: "not_found", message: "no published entry with a downloadable bundle has this id" }, { status: 404, headers: noStore });
  let file: string;
  try {
    file = (await bundleDownload(hostedStorageFromEnv(process.env), bundle)).file;
  } catch (err) {
    if (!(err instanceof BundleLostError)) throw err;
    return Response.json({ error: "gone", message: `this entry's bundle cannot be served: ${err.message}` }, { status: 410, headers: noStore });
  }
  const { size } = await stat(file);
  const name = `${bundle.benchmark}-entry-${bundle.id}-${bundle.sha256.slice(0, 12)}.zip`.replace(/[^\w.-]+/g, "_");
  return new Response(Readable.toWeb(createReadStream(file)) as ReadableStream, {
    status: 200,
    headers: {
      "Content-Type": "application/zip",
      "Content-Length": String(size),
      "Content-Disposition": `attachment; filename="${name}"`,
      "X-Bundle-Sha256": bundle.sha256,
      "X-Bundle-Kind": bundle.kind,
      "Cache-Control": "private, no-cache",
    },
  });
}
