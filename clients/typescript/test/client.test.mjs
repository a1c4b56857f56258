// Round trips of every client method against a real `evidence serve` with tokens (the compiled dist/).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";

import {
  Client,
  codePointSlice,
  AuthError,
  BadRequestError,
  ConflictError,
  EvidenceError,
  ForbiddenError,
  GoneError,
  NotFoundError,
  PayloadTooLargeError,
  ServerError,
  TransportError,
  UnauthorizedError,
  UnprocessableError,
  errorFromResponse,
} from "../dist/index.js";
import { startServer, sample, SERVICE, ALICE } from "./server.mjs";

const DEADLINE = "Submit all expense reports within 14 calendar days";
let S, c, expense;

before(async () => {
  S = await startServer({ tokens: true, args: ["--max-body", "65536", "--public-url", "http://127.0.0.1:9"] });
  c = new Client(S.url, { token: SERVICE });
  expense = await c.ingest(sample("expense-policy.md"), { documentId: "policies/expense-policy.md" });
  await c.ingest(sample("credit-agreement-summary.txt"), { documentId: "credit.txt", acl: ["alice@example.com"], metadata: { batch: 7 } });
});

after(async () => {
  await S?.stop();
});

async function all(gen) {
  const out = [];
  for await (const x of gen) out.push(x);
  return out;
}

async function chunkWith(doc, words) {
  const r = (await all(c.iterChunks(doc))).find((x) => x.text.includes(words));
  assert.ok(r, `no chunk of ${doc} holds ${words}`);
  return r;
}

test("ingest", async () => {
  assert.equal(expense.status, "ingested");
  assert.equal(expense.document_id, "policies/expense-policy.md");
  assert.ok(expense.chunks > 1);
  const again = await c.ingest(sample("expense-policy.md"), { documentId: "policies/expense-policy.md" });
  assert.equal(again.status, "unchanged");
  assert.equal(again.document_version, expense.document_version);
  const dry = await c.ingest("One short note.\n", { filename: "note.txt", dryRun: true });
  assert.deepEqual([dry.status, dry.dry_run], ["ingested", true]);
  await assert.rejects(c.ingest("x"), TypeError);
});

test("list chunks, page by page", async () => {
  const first = await c.listChunks("policies/expense-policy.md", { limit: 2 });
  assert.equal(first.chunks.length, 2);
  assert.ok(first.next_cursor);
  const second = await c.listChunks("policies/expense-policy.md", { limit: 2, cursor: first.next_cursor });
  const every = await all(c.iterChunks("policies/expense-policy.md", { pageSize: 2 }));
  assert.equal(every.length, expense.chunks);
  assert.deepEqual(every.slice(0, 4).map((r) => r.chunk_id), [...first.chunks, ...second.chunks].map((r) => r.chunk_id));
  for (const r of every) assert.deepEqual(r.acl, []);
  const mine = await all(new Client(S.url, { token: ALICE }).iterChunks("credit.txt"));
  assert.ok(mine.length > 0);
  assert.equal(mine[0].acl, undefined);
  await assert.rejects(c.withPrincipal("bob@example.com").listChunks("credit.txt"), NotFoundError);
  await assert.rejects(c.listChunks("credit.txt", { limit: 5000 }), BadRequestError);
});

test("resolve, with a signed viewer link", async () => {
  const rec = await chunkWith("policies/expense-policy.md", DEADLINE);
  const r = await c.resolve(rec.chunk_id);
  assert.equal(r.status, "ok");
  assert.equal(r.text, rec.text);
  assert.equal(r.link.kind, "heading");
  assert.ok(r.viewer_url.startsWith(`http://127.0.0.1:9/view/${rec.chunk_id}?`));
  const page = await fetch(S.url + r.viewer_url.slice("http://127.0.0.1:9".length));
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /id="cited"/);
  assert.match(html, /within 14 calendar days/);
  const tampered = await fetch(S.url + r.viewer_url.slice("http://127.0.0.1:9".length).replace("principal=", "principal=x"));
  assert.equal(tampered.status, 403);
  const missing = await c.resolve(expense.document_version + "-999");
  assert.equal(missing.status, "not_found");
  const forbidden = await c.withPrincipal("bob@example.com").resolve((await chunkWith("credit.txt", "")).chunk_id);
  assert.equal(forbidden.status, "forbidden");
  assert.equal(forbidden.text, undefined);
});

test("resolve citations and text ranges", async () => {
  const rec = await chunkWith("policies/expense-policy.md", DEADLINE);
  const res = await c.resolveCitations([{ chunk_id: rec.chunk_id, quote: DEADLINE }, "nope-1"], { metadata: { conversation: "k1" } });
  assert.deepEqual(res.metadata, { conversation: "k1" });
  const [ok, bad] = res.results;
  assert.equal(ok.citation.match, "exact");
  assert.equal(bad.status, "not_found");
  const start = ok.citation.source_start;
  const span = await c.text(expense.document_version, start, start + DEADLINE.length);
  assert.equal(span.text, DEADLINE);
});

test("offsets are code points, not UTF-16 units", async () => {
  const text = "Intro 🚀 line.\n\nThe fee is 3 % 🎉 per year, per 契約.\n";
  const res = await c.importManifest(text, [
    { text: "Intro 🚀 line.", source_start: 0, source_end: 13, chunk_id: "e-0" },
    { text: "The fee is 3 % 🎉 per year, per 契約.", source_start: 15, source_end: 49, chunk_id: "e-1" },
  ], { documentId: "emoji.txt" });
  assert.equal(res.status, "ingested", JSON.stringify(res));
  const [, second] = await all(c.iterChunks("emoji.txt"));
  assert.equal(second.external_id, "e-1");
  assert.equal(codePointSlice(text, second.source_start, second.source_end), second.text);
  assert.notEqual(text.slice(second.source_start, second.source_end), second.text); // UTF-16 indices would be wrong
});

test("verify and read the trace", async () => {
  const rec = await chunkWith("policies/expense-policy.md", DEADLINE);
  const report = await c.verify({
    request_id: "r-1",
    retrieved: [rec.chunk_id],
    metadata: { model: "m-1" },
    claims: [{ claim_id: "c1", text: "Expense reports must be submitted within 14 calendar days.", evidence: [{ chunk_id: rec.chunk_id, quote: DEADLINE }] }],
  });
  assert.equal(report.disposition, "accept");
  assert.equal(report.claims[0].status, "supported");
  assert.deepEqual(report.metadata, { model: "m-1" });
  assert.match(report.claims[0].evidence[0].viewer_url, /sig=/);
  const trace = await c.trace(report.trace_id);
  assert.equal(trace.request.claims[0].evidence[0].quote, DEADLINE);
  assert.equal(trace.report.disposition, "accept");
  const wrong = await c.verify({
    retrieved: [rec.chunk_id],
    claims: [{ claim_id: "c1", text: "Expense reports must be submitted within 30 calendar days.", evidence: [{ chunk_id: rec.chunk_id, quote: DEADLINE }] }],
  }, { trace: false });
  assert.equal(wrong.disposition, "block");
  assert.equal(wrong.trace_id, undefined);
  const listed = await c.listTraces({ request_id: "r-1" });
  assert.deepEqual(listed.traces.map((t) => [t.trace_id, t.disposition]), [[report.trace_id, "accept"]]);
  const stats = await c.traceStats({ by: "document", since: "1h" });
  assert.ok(stats.groups.some((g) => g.key === "policies/expense-policy.md"));
  assert.deepEqual((await c.withPrincipal("bob@example.com").listTraces({ request_id: "r-1" })).traces, []);
  await assert.rejects(c.trace("0000000000000000000000000000"), NotFoundError);
  await assert.rejects(c.withPrincipal("bob@example.com").trace(report.trace_id), NotFoundError);
});

test("verify a provider's cited answer (Anthropic char_location)", async () => {
  const rec = await chunkWith("policies/expense-policy.md", DEADLINE);
  const start = (await c.resolveCitations([{ chunk_id: rec.chunk_id, quote: DEADLINE }])).results[0].citation.source_start;
  const response = {
    id: "msg_02", type: "message", role: "assistant", content: [{
      type: "text", text: "Expense reports are due within 14 calendar days.",
      citations: [{ type: "char_location", cited_text: DEADLINE, document_index: 0, start_char_index: start, end_char_index: start + DEADLINE.length }],
    }],
  };
  const report = await c.verifyProvider("anthropic", { response, map: { 0: { document_id: "policies/expense-policy.md" } } });
  assert.equal(report.disposition, "accept");
  assert.equal(report.request_id, "msg_02");
  await assert.rejects(c.verifyProvider("anthropic", { response, map: { 1: { document_id: "policies/expense-policy.md" } } }), BadRequestError);
});

test("documents, rebuild, delete, undelete", async () => {
  const data = Buffer.concat([sample("data-retention.md"), Buffer.from("\nAppendix: none.\n")]);
  const res = await c.ingest(data, { documentId: "retention.md" });
  const [old] = await all(c.iterChunks("retention.md"));
  const listed = (await c.documents()).documents.find((d) => d.document_id === "retention.md");
  assert.equal(listed.current_version, res.document_version);
  const rebuilt = await c.rebuild("retention.md", { chunk_size: 300, overlap: 30 });
  assert.equal(rebuilt.superseded, res.document_version);
  assert.equal((await c.resolve(old.chunk_id)).status, "superseded");
  await assert.rejects(c.withPrincipal("alice@example.com").delete("retention.md"), ForbiddenError);
  const gone = await c.delete("retention.md");
  assert.deepEqual(new Set(gone.deleted_versions), new Set([res.document_version, rebuilt.document_version]));
  await assert.rejects(c.listChunks("retention.md"), (e) => e instanceof GoneError && e.code === "deleted");
  await assert.rejects(c.ingest(data, { documentId: "retention.md" }), (e) => {
    assert.ok(e instanceof ConflictError);
    assert.equal(e.status, 409);
    assert.equal(e.result.reason, "document_deleted");
    return true;
  });
  assert.equal((await c.ingest(data, { documentId: "retention.md", undelete: true })).status, "ingested");
  await assert.rejects(c.rebuild("no-such-document.md"), NotFoundError);
});

test("import a manifest; the gate rejects drift", async () => {
  const md = sample("data-retention.md").toString("utf8");
  const paras = md.split(/\n\n+/).filter((p) => p.trim());
  let pos = 0;
  const lines = paras.map((p, i) => {
    const at = md.indexOf(p, pos);
    pos = at + p.length;
    return { page_content: p, metadata: { source: "data-retention.md", start_index: [...md.slice(0, at)].length }, id: `lc-${i}` };
  });
  const res = await c.importManifest(sample("data-retention.md"), lines, { documentId: "imported.md" });
  assert.deepEqual([res.status, res.chunks_format, res.offsets], ["ingested", "langchain", "document"]);
  const recs = await all(c.iterChunks("imported.md"));
  assert.deepEqual(recs.map((r) => r.external_id), lines.map((l) => l.id));
  const drift = lines.map((l, i) => (i === 1 ? { ...l, metadata: { ...l.metadata, start_index: l.metadata.start_index + 7 } } : l));
  await assert.rejects(c.importManifest(sample("data-retention.md"), drift, { documentId: "imported.md" }), (e) => {
    assert.ok(e instanceof UnprocessableError);
    assert.equal(e.result.status, "rejected");
    assert.equal(e.result.quarantined, 1);
    assert.match(e.result.hint, /repair=true/);
    return true;
  });
  const kept = await c.importManifest(sample("data-retention.md"), drift, { documentId: "imported.md", maxQuarantined: 1 });
  assert.equal(kept.quarantined, 1);
  const q = await c.quarantine({ document: "imported.md" });
  assert.equal(q.total, 1);
  assert.equal(q.chunks[0].external_id, "lc-1");
  assert.equal((await c.resolve(q.chunks[0].chunk_id)).status, "quarantined");
  const fixed = await c.importManifest(sample("data-retention.md"), drift, { documentId: "imported.md", repair: true });
  assert.equal(fixed.repaired, 1);
  await assert.rejects(c.importManifest(sample("data-retention.md"), lines, { documentId: "imported.md", offsets: "sideways" }), BadRequestError);
});

test("errors, one class per HTTP error class", async () => {
  await assert.rejects(new Client(S.url, { token: "not-a-token-0123456789" }).documents(), (e) => e instanceof UnauthorizedError && e instanceof AuthError && e.status === 401);
  await assert.rejects(new Client(S.url).documents(), UnauthorizedError);
  const alice = new Client(S.url, { token: ALICE });
  await assert.rejects(alice.withPrincipal("bob@example.com").documents(), (e) => e instanceof ForbiddenError && e.code === "forbidden");
  await assert.rejects(alice.ingest("x\n", { filename: "a.txt" }), ForbiddenError);
  await assert.rejects(c.verify({ bogus: 1 }), (e) => e instanceof BadRequestError && /bogus/.test(e.message) && /POST \/v1\/verify/.test(e.message));
  await assert.rejects(c.verify({ answer: "x".repeat(70000) }), (e) => e instanceof PayloadTooLargeError && e.status === 413);
  await assert.rejects(new Client("http://127.0.0.1:9", { timeoutMs: 2000 }).documents(), (e) => e instanceof TransportError && e instanceof EvidenceError);
  assert.equal(await new Client("http://127.0.0.1:9", { timeoutMs: 2000 }).health(), false);
  assert.equal(await c.health(), true);
  for (const status of [500, 503]) {
    const e = errorFromResponse(status, { error: { code: "unavailable", message: "down" } }, "GET", "/x");
    assert.ok(e instanceof ServerError);
    assert.deepEqual([e.status, e.code], [status, "unavailable"]);
  }
  assert.throws(() => new Client("127.0.0.1:8080"), TypeError);
});

test("codePointSlice", () => {
  assert.equal(codePointSlice("a🚀b契c", 1, 4), "🚀b契");
  assert.equal("a🚀b契c".slice(1, 4), "🚀b");
});
