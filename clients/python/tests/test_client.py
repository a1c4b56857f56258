"""Round trips of every client method against a real `evidence serve` with tokens."""

import json
import unittest
import urllib.request

from tests import server as srv

from evidence_client import (
    AuthError,
    BadRequestError,
    Claim,
    Client,
    ConflictError,
    Evidence,
    EvidenceError,
    ForbiddenError,
    GoneError,
    NotFoundError,
    PayloadTooLargeError,
    ServerError,
    TransportError,
    UnauthorizedError,
    UnprocessableError,
    VerifyRequest,
)
from evidence_client import errors

S: srv.Server
DEADLINE = "Submit all expense reports within 14 calendar days"


def setUpModule():
    global S
    S = srv.Server(tokens=True, args=["--max-body", "65536", "--public-url", "http://127.0.0.1:9"])


def tearDownModule():
    S.stop()


def admin() -> Client:
    return Client(S.url, token=srv.SERVICE)


class ClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = admin()
        cls.expense = cls.c.ingest(srv.sample("expense-policy.md"), document_id="policies/expense-policy.md")
        cls.credit = cls.c.ingest(srv.sample("credit-agreement-summary.txt"), document_id="credit.txt",
                                  acl=["alice@example.com"], metadata={"batch": 7})

    def chunk_with(self, doc: str, words: str):
        for r in self.c.iter_chunks(doc):
            if words in r.text:
                return r
        self.fail(f"no chunk of {doc} holds {words!r}")

    def test_ingest(self):
        self.assertEqual(self.expense.status, "ingested")
        self.assertEqual(self.expense.document_id, "policies/expense-policy.md")
        self.assertGreater(self.expense.chunks, 1)
        self.assertEqual(self.expense.media_type, "text/markdown")
        self.assertEqual(self.credit.metadata, {"batch": 7})
        again = self.c.ingest(srv.sample("expense-policy.md"), document_id="policies/expense-policy.md")
        self.assertEqual(again.status, "unchanged")
        self.assertEqual(again.document_version, self.expense.document_version)
        raw = self.c.ingest(b"Plain bytes, one short chunk.\n", filename="note.txt", dry_run=True)
        self.assertEqual((raw.status, raw.dry_run), ("ingested", True))
        with self.assertRaises(ValueError):
            self.c.ingest(b"no name")

    def test_list_chunks_pages(self):
        first = self.c.list_chunks("policies/expense-policy.md", limit=2)
        self.assertEqual(len(first.chunks), 2)
        self.assertEqual(first.version_status, "current")
        self.assertTrue(first.next_cursor)
        second = self.c.list_chunks("policies/expense-policy.md", limit=2, cursor=first.next_cursor)
        self.assertNotEqual(first.chunks[0].chunk_id, second.chunks[0].chunk_id)
        every = list(self.c.iter_chunks("policies/expense-policy.md", page_size=2))
        self.assertEqual(len(every), self.expense.chunks)
        self.assertEqual([r.chunk_id for r in every[:4]], [r.chunk_id for r in first.chunks + second.chunks])
        for r in every:
            self.assertEqual(r.acl, [])  # an administrator sees the access list
            self.assertEqual(r.document_version, self.expense.document_version)
            self.assertEqual(len(r.span_hash), 64)
        credit = list(self.c.iter_chunks("credit.txt"))
        self.assertEqual(credit[0].acl, ["alice@example.com"])
        # alice reads her document, without its acl (other principals' names are not hers to see)
        alice = Client(S.url, token=srv.ALICE)
        mine = list(alice.iter_chunks("credit.txt"))
        self.assertEqual([r.chunk_id for r in mine], [r.chunk_id for r in credit])
        self.assertIsNone(mine[0].acl)
        # a reader outside the list gets the 404 of a document that does not exist
        with self.assertRaises(NotFoundError) as cm:
            self.c.with_principal("bob@example.com").list_chunks("credit.txt")
        self.assertEqual(cm.exception.status, 404)
        with self.assertRaises(BadRequestError):
            self.c.list_chunks("credit.txt", limit=5000)

    def test_resolve(self):
        rec = self.chunk_with("policies/expense-policy.md", DEADLINE)
        r = self.c.resolve(rec.chunk_id)
        self.assertTrue(r.served)
        self.assertEqual(r.text, rec.text)
        self.assertEqual((r.source_start, r.source_end), (rec.source_start, rec.source_end))
        self.assertEqual(r.link.kind, "heading")
        self.assertTrue(r.viewer_url.startswith("http://127.0.0.1:9/view/" + rec.chunk_id + "?"))
        self.assertIn("sig=", r.viewer_url)
        # the signed link opens the viewer without a token
        path = r.viewer_url[len("http://127.0.0.1:9"):]
        with urllib.request.urlopen(S.url + path, timeout=10) as resp:
            page = resp.read().decode()
        self.assertEqual(resp.status, 200)
        self.assertIn('id="cited"', page)
        self.assertIn("within 14 calendar days", page)
        # an unknown chunk is an answer, not an exception
        missing = self.c.resolve(self.expense.document_version + "-999")
        self.assertEqual(missing.status, "not_found")
        self.assertFalse(missing.served)
        forbidden = self.c.with_principal("bob@example.com").resolve(self.chunk_with("credit.txt", "").chunk_id)
        self.assertEqual(forbidden.status, "forbidden")
        self.assertIsNone(forbidden.text)

    def test_resolve_citations_and_text(self):
        rec = self.chunk_with("policies/expense-policy.md", DEADLINE)
        res = self.c.resolve_citations([{"chunk_id": rec.chunk_id, "quote": DEADLINE}, "nope-1"],
                                       metadata={"conversation": "k1"})
        self.assertEqual(res.metadata, {"conversation": "k1"})
        ok, bad = res.results
        self.assertEqual(ok.citation.match, "exact")
        self.assertEqual(ok.citation.text, DEADLINE)
        start = ok.citation.source_start
        self.assertEqual(bad.status, "not_found")
        span = self.c.text(self.expense.document_version, start, start + len(DEADLINE))
        self.assertEqual(span.text, DEADLINE)
        self.assertIn("sig=", span.viewer_url)

    def test_verify_and_trace(self):
        rec = self.chunk_with("policies/expense-policy.md", DEADLINE)
        req = VerifyRequest(request_id="r-1", retrieved=[rec.chunk_id], metadata={"model": "m-1"}, claims=[
            Claim("c1", "Expense reports must be submitted within 14 calendar days.",
                  [Evidence(rec.chunk_id, quote=DEADLINE)])])
        report = self.c.verify(req)
        self.assertEqual(report.disposition, "accept")
        self.assertEqual(report.claims[0].status, "supported")
        self.assertEqual(report.metrics.citation_support_rate, 1)
        self.assertEqual(report.metadata, {"model": "m-1"})
        self.assertEqual(len(report.viewer_urls()), 1)
        trace = self.c.trace(report.trace_id)
        self.assertEqual(trace.request.claims[0].evidence[0].quote, DEADLINE)
        self.assertEqual(trace.report.disposition, "accept")
        # a changed figure contradicts the evidence: the answer is blocked
        wrong = self.c.verify({"request_id": "r-2", "retrieved": [rec.chunk_id], "claims": [
            {"claim_id": "c1", "text": "Expense reports must be submitted within 30 calendar days.",
             "evidence": [{"chunk_id": rec.chunk_id, "quote": DEADLINE}]}]}, trace=False)
        self.assertEqual(wrong.disposition, "block")
        self.assertEqual(wrong.claims[0].status, "contradicted")
        self.assertIsNone(wrong.trace_id)
        # the listing finds it by request id, the stats count it
        listed = self.c.list_traces(request_id="r-1")
        self.assertEqual([(t.trace_id, t.disposition, t.documents) for t in listed.traces],
                         [(report.trace_id, "accept", ["policies/expense-policy.md"])])
        stats = self.c.trace_stats(by="document", since="1h")
        self.assertGreaterEqual(stats.traces, 1)
        self.assertIn("policies/expense-policy.md", [g["key"] for g in stats.groups])
        self.assertEqual(self.c.with_principal("bob@example.com").list_traces(request_id="r-1").traces, [])
        with self.assertRaises(NotFoundError):
            self.c.trace("0000000000000000000000000000")
        # the trace is not bob's
        with self.assertRaises(NotFoundError):
            self.c.with_principal("bob@example.com").trace(report.trace_id)

    def test_verify_provider(self):
        # an Anthropic Messages API answer citing the policy by character location
        res = self.c.resolve_citations([{"chunk_id": self.chunk_with("policies/expense-policy.md", DEADLINE).chunk_id,
                                         "quote": DEADLINE}]).results[0]
        start = res.citation.source_start
        answer = {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude", "content": [
            {"type": "text", "text": "Expense reports are due within 14 calendar days.", "citations": [
                {"type": "char_location", "cited_text": DEADLINE, "document_index": 0, "document_title": "Expenses",
                 "start_char_index": start, "end_char_index": start + len(DEADLINE)}]}]}
        report = self.c.verify_provider("anthropic", answer, {"0": {"document_id": "policies/expense-policy.md"}},
                                        metadata={"via": "anthropic"})
        self.assertEqual(report.disposition, "accept")
        self.assertEqual(report.request_id, "msg_01")
        self.assertEqual(report.claims[0].evidence[0].text, DEADLINE)
        with self.assertRaises(BadRequestError) as cm:  # a document index missing from the map
            self.c.verify_provider("anthropic", answer, {"1": {"document_id": "policies/expense-policy.md"}})
        self.assertIn("0", cm.exception.message)

    def test_documents_rebuild_delete(self):
        c = self.c
        # bytes of their own, so the tombstone of these bytes does not touch the other tests' uploads
        data = (srv.read("data-retention.md") + "\nAppendix: none.\n").encode()
        res = c.ingest(data, document_id="retention.md")
        old = next(c.iter_chunks("retention.md"))
        listed = {d.document_id: d for d in c.documents().documents}
        self.assertEqual(listed["retention.md"].current_version, res.document_version)
        rebuilt = c.rebuild("retention.md", chunk_size=300, overlap=30)
        self.assertEqual(rebuilt.status, "ingested")
        self.assertEqual(rebuilt.superseded, res.document_version)
        self.assertEqual(c.resolve(old.chunk_id).status, "superseded")
        with self.assertRaises(ForbiddenError):  # only an administrator deletes
            c.with_principal("alice@example.com").delete("retention.md")
        gone = c.delete("retention.md")
        self.assertEqual(set(gone.deleted_versions), {res.document_version, rebuilt.document_version})
        self.assertEqual(c.resolve(old.chunk_id).status, "deleted")
        with self.assertRaises(GoneError) as cm:
            c.list_chunks("retention.md")
        self.assertEqual(cm.exception.code, "deleted")
        with self.assertRaises(ConflictError) as cm:
            c.ingest(data, document_id="retention.md")
        self.assertEqual(cm.exception.status, 409)
        self.assertEqual(cm.exception.result.status, "deleted")
        self.assertEqual(cm.exception.result.reason, "document_deleted")
        back = c.ingest(data, document_id="retention.md", undelete=True)
        self.assertEqual(back.status, "ingested")
        with self.assertRaises(NotFoundError):
            c.rebuild("no-such-document.md")

    def test_import_manifest(self):
        md = srv.read("data-retention.md")
        lines = [{"page_content": t, "metadata": {"source": "data-retention.md", "start_index": s},
                  "id": f"lc-{i}"} for i, (s, t) in enumerate(srv.split(md))]
        res = self.c.import_manifest(srv.sample("data-retention.md"), lines, document_id="imported.md")
        self.assertEqual((res.status, res.chunks_format, res.offsets), ("ingested", "langchain", "document"))
        self.assertEqual(res.chunks, len(lines))
        recs = list(self.c.iter_chunks("imported.md"))
        self.assertEqual([r.external_id for r in recs], [ln["id"] for ln in lines])
        self.assertEqual([r.text for r in recs], [ln["page_content"] for ln in lines])
        # JSON Lines text is sent as it is
        jsonl = "\n".join(json.dumps(ln, ensure_ascii=False) for ln in lines) + "\n"  # the bytes the list gave
        same = self.c.import_manifest(srv.sample("data-retention.md"), jsonl, document_id="imported.md")
        self.assertEqual(same.status, "unchanged")
        # one chunk drifted: the gate rejects the import, nothing stored, the hint says why
        drift = [dict(ln) for ln in lines]
        drift[1] = dict(drift[1], metadata={"source": "x", "start_index": drift[1]["metadata"]["start_index"] + 7})
        with self.assertRaises(UnprocessableError) as cm:
            self.c.import_manifest(srv.sample("data-retention.md"), drift, document_id="imported.md")
        err = cm.exception
        self.assertEqual(err.status, 422)
        self.assertEqual(err.result.status, "rejected")
        self.assertEqual(err.result.quarantined, 1)
        self.assertIn("repair=true", err.result.hint or "")
        self.assertEqual(next(self.c.iter_chunks("imported.md")).document_version, res.document_version)
        # repaired, the drifted chunk is re-anchored and served
        fixed = self.c.import_manifest(srv.sample("data-retention.md"), drift, document_id="imported.md", repair=True)
        self.assertEqual((fixed.status, fixed.repaired), ("ingested", 1))
        with self.assertRaises(BadRequestError):
            self.c.import_manifest(srv.sample("data-retention.md"), lines, document_id="imported.md",
                                   offsets="sideways")


class ErrorsTest(unittest.TestCase):
    def test_unauthorized(self):
        with self.assertRaises(UnauthorizedError) as cm:
            Client(S.url, token="not-a-token-0123456789").documents()
        self.assertIsInstance(cm.exception, AuthError)
        self.assertEqual((cm.exception.status, cm.exception.code), (401, "unauthorized"))
        with self.assertRaises(UnauthorizedError):
            Client(S.url, token="").documents()

    def test_forbidden(self):
        alice = Client(S.url, token=srv.ALICE)
        with self.assertRaises(ForbiddenError) as cm:  # a principal's token cannot act for another
            alice.with_principal("bob@example.com").documents()
        self.assertEqual(cm.exception.code, "forbidden")
        with self.assertRaises(ForbiddenError):  # nor upload
            alice.ingest(b"text\n", filename="a.txt")

    def test_bad_request(self):
        with self.assertRaises(BadRequestError) as cm:
            admin().verify({"bogus": 1})
        self.assertIn("bogus", cm.exception.message)
        self.assertIn("POST /v1/verify", str(cm.exception))

    def test_payload_too_large(self):
        with self.assertRaises(PayloadTooLargeError) as cm:
            admin().verify(VerifyRequest(answer="x" * 70000))
        self.assertEqual(cm.exception.status, 413)

    def test_transport(self):
        with self.assertRaises(TransportError) as cm:
            Client("http://127.0.0.1:9", timeout=2).documents()
        self.assertIsInstance(cm.exception, EvidenceError)
        self.assertFalse(Client("http://127.0.0.1:9", timeout=2).health())
        self.assertTrue(admin().health())

    def test_server_error_classes(self):
        # 5xx cannot be provoked from a healthy server; the mapping is what the client owns
        for status in (500, 502, 503):
            e = errors.from_response(status, {"error": {"code": "unavailable", "message": "down"}}, "GET", "/x")
            self.assertIsInstance(e, ServerError)
            self.assertEqual((e.status, e.code, e.message), (status, "unavailable", "down"))
        e = errors.from_response(502, "<html>Bad gateway</html>", "GET", "/x")
        self.assertIsInstance(e, ServerError)
        self.assertIn("Bad gateway", e.message)

    def test_base_url(self):
        with self.assertRaises(ValueError):
            Client("127.0.0.1:8080")


if __name__ == "__main__":
    unittest.main()
