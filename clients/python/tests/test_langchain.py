"""The LangChain adapters against a real server, with stand-ins that have LangChain's field names
(Document.page_content, .metadata, .id; metadata.source, .start_index, .page, .page_label)."""

import subprocess
import sys
import unittest

from tests import server as srv

from evidence_client import Client, UnprocessableError
from evidence_client import langchain as lc

S: srv.Server


def setUpModule():
    global S
    S = srv.Server()


def tearDownModule():
    S.stop()


class Document:
    """langchain_core.documents.Document's fields."""

    def __init__(self, page_content, metadata=None, id=None):
        self.page_content = page_content
        self.metadata = metadata or {}
        self.id = id


def text_loader(name):
    """TextLoader: one Document for the whole file, metadata.source the path."""
    return [Document(srv.read(name), {"source": srv.sample(name)})]


def pypdf_loader(name):
    """PyPDFLoader: one Document a page, stripped, metadata.page from 0 and page_label."""
    pages = srv.read(name).split("\f")
    return [Document(p.strip(), {"source": srv.sample(name), "page": i, "page_label": str(i + 1),
                                 "total_pages": len(pages)}) for i, p in enumerate(pages)]


def split_documents(docs, size=400):
    """RecursiveCharacterTextSplitter(add_start_index=True).split_documents: start_index counts in each
    input document's page_content."""
    out = []
    for d in docs:
        for start, text in srv.split(d.page_content, size):
            out.append(Document(text, dict(d.metadata, start_index=start)))
    return out


class FakeVectorStoreRetriever:
    """A retriever over a store that kept ids but dropped the chunk_id metadata, returning documents
    whose text holds the query's words."""

    def __init__(self, docs):
        self.docs = [Document(d.page_content, {"source": d.metadata["source"]}, d.metadata["evidence_external_id"])
                     for d in docs]
        self.calls = []

    def invoke(self, query, **kw):
        self.calls.append(query)
        return [d for d in self.docs if query.lower() in d.page_content.lower()]


class LangChainTest(unittest.TestCase):
    def setUp(self):
        self.c = Client(S.url)

    def test_manifest_shape(self):
        docs = split_documents(pypdf_loader("credit-agreement-summary.txt"))
        docs[0].id = "id-0"
        lines = lc.documents_to_manifest(docs)
        self.assertEqual(lines[0]["id"], "id-0")
        self.assertNotIn("id", lines[1])
        self.assertEqual(lines[1]["page_content"], docs[1].page_content)
        self.assertEqual(set(lines[1]["metadata"]), {"source", "page", "page_label", "total_pages", "start_index"})
        # what JSON cannot carry is left out, never a failure
        docs[2].metadata["loader"] = object()
        self.assertNotIn("loader", lc.documents_to_manifest(docs)[2]["metadata"])

    def test_text_loader_document_offsets(self):
        docs = split_documents(text_loader("expense-policy.md"))
        imp = lc.import_documents(self.c, docs, document_id="lc/expense-policy.md")
        res = imp.results["lc/expense-policy.md"]
        self.assertEqual((res.status, res.chunks_format, res.offsets), ("ingested", "langchain", "document"))
        self.assertEqual(len(imp.items), len(docs))
        self.assertEqual(imp.quarantined, [])
        for d, item in zip(docs, imp.items):
            self.assertNotIn("chunk_id", d.metadata)  # the input is untouched
            r = self.c.resolve(item.metadata["chunk_id"])
            self.assertEqual(r.text, d.page_content)
            self.assertEqual(r.source_start, d.metadata["start_index"])

    def test_pypdf_loader_page_offsets(self):
        pages = pypdf_loader("credit-agreement-summary.txt")
        docs = split_documents(pages)
        # offsets count from each page, pages from 0: the import detects it
        imp = lc.import_documents(self.c, docs, document_id="lc/credit")
        res = imp.results["lc/credit"]
        self.assertEqual((res.offsets, res.page_base), ("page", 0))
        self.assertEqual(len(imp.items), len(docs))
        full = srv.read("credit-agreement-summary.txt")
        for d, item in zip(docs, imp.items):
            r = self.c.resolve(item.metadata["chunk_id"])
            self.assertEqual(r.page_number, d.metadata["page"] + 1)
            self.assertEqual(r.text, d.page_content)
            self.assertEqual(full[r.source_start:r.source_end], d.page_content)
        # with the loader's pages, their text is the canonical text: offsets are checked in it
        imp2 = lc.import_documents(self.c, docs, document_id="lc/credit-pypdf", pages=pages)
        self.assertEqual(imp2.results["lc/credit-pypdf"].offsets, "page")
        self.assertEqual(len(imp2.items), len(docs))

    def test_quarantined_set_apart(self):
        docs = split_documents(text_loader("data-retention.md"))
        docs[2] = Document(docs[2].page_content, dict(docs[2].metadata, start_index=docs[2].metadata["start_index"] + 5))
        with self.assertRaises(UnprocessableError) as cm:
            lc.import_documents(self.c, docs, document_id="lc/retention.md")
        self.assertEqual(cm.exception.result.status, "rejected")
        imp = lc.import_documents(self.c, docs, document_id="lc/retention.md", max_quarantined=1)
        self.assertEqual(len(imp.items), len(docs) - 1)
        (q,) = imp.quarantined
        self.assertEqual(q.page_content, docs[2].page_content)
        self.assertEqual(q.metadata["evidence_quarantine"], "text_mismatch")
        self.assertEqual(self.c.resolve(q.metadata["chunk_id"]).status, "quarantined")
        with self.assertRaises(ValueError):  # one document id for two sources
            lc.import_documents(self.c, docs + split_documents(text_loader("expense-policy.md")), document_id="x")

    def test_retriever_verify_answer(self):
        docs = split_documents(text_loader("expense-policy.md"))
        imp = lc.import_documents(self.c, docs, document_id="lc/rag/expense-policy.md")
        base = FakeVectorStoreRetriever(imp.items)
        retriever = lc.EvidenceRetriever(base, imp.chunk_ids)
        got = retriever.invoke("14 calendar days")
        self.assertEqual(base.calls, ["14 calendar days"])
        self.assertTrue(got)
        ids = [d.metadata["chunk_id"] for d in got]
        self.assertEqual(retriever.last_retrieved, ids)
        for d in got:
            self.assertEqual(self.c.resolve(d.metadata["chunk_id"]).text, d.page_content)
        prompt = lc.prompt_for("When are expense reports due?", got)
        self.assertIn(f"[{ids[0]}] ", prompt)
        # the model answers with a fenced, trailing-comma'd reply
        reply = ('```json\n{"answer": "Within 14 calendar days.", "claims": [{"claim_id": "c1", '
                 '"text": "Expense reports must be submitted within 14 calendar days.", "evidence": '
                 f'[{{"chunk_id": "{ids[0]}", "quote": "Submit all expense reports within 14 calendar days"}},]}},]}}\n```')
        report, parsed = lc.verify_answer(self.c, reply, got, request_id="lc-1")
        self.assertEqual(parsed.repairs, ["code_fence", "trailing_comma"])
        self.assertEqual(report.disposition, "accept")
        self.assertEqual(report.claims[0].evidence[0].chunk_id, ids[0])
        self.assertIn("sig=", report.viewer_urls()[0])
        # a chunk id the retriever never returned: kept as cited, and the verifier blocks the claim
        bad = reply.replace(ids[0], "0" * 32 + "-0")
        report, parsed = lc.verify_answer(self.c, bad, got)
        self.assertEqual(len(parsed.unknown_chunk_ids), 1)
        self.assertEqual(report.claims[0].disposition, "block_claim")
        self.assertNotEqual(report.disposition, "accept")
        # documents nobody can cite are left out
        self.assertEqual(lc.EvidenceRetriever(base).invoke("14 calendar days"), [])
        self.assertEqual(len(lc.EvidenceRetriever(base, keep_unmapped=True).invoke("14 calendar days")), len(got))

    def test_lazy_framework_import(self):
        code = ("import sys, evidence_client.langchain, evidence_client.llamaindex, evidence_client.claims; "
                "print(any(m.split('.')[0] in ('langchain', 'langchain_core', 'llama_index') for m in sys.modules))")
        out = subprocess.run([sys.executable, "-c", code], cwd=srv.os.path.join(srv.HERE, ".."),
                             capture_output=True, text=True, check=True).stdout.strip()
        self.assertEqual(out, "False")
        try:
            import langchain_core  # noqa: F401
        except ImportError:
            with self.assertRaises(ImportError) as cm:
                lc.to_langchain_prompt()
            self.assertIn("langchain-core", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
