"""The LlamaIndex adapters against a real server, with stand-ins that have LlamaIndex's field names
(TextNode.id_, .node_id, .text, .start_char_idx, .end_char_idx, .metadata with file_path and page_label;
NodeWithScore.node, .score)."""

import unittest
import uuid

from tests import server as srv

from evidence_client import Client
from evidence_client import llamaindex as li

S: srv.Server


def setUpModule():
    global S
    S = srv.Server()


def tearDownModule():
    S.stop()


class TextNode:
    def __init__(self, text, start_char_idx=None, end_char_idx=None, metadata=None, id_=None):
        self.id_ = id_ or str(uuid.uuid4())
        self.text = text
        self.start_char_idx = start_char_idx
        self.end_char_idx = end_char_idx
        self.metadata = metadata or {}

    @property
    def node_id(self):
        return self.id_

    def get_content(self):
        return self.text


class NodeWithScore:
    def __init__(self, node, score=None):
        self.node = node
        self.score = score


def reader(name):
    """SimpleDirectoryReader on a text file: one Document, metadata file_path and file_name."""
    return [TextNode(srv.read(name), metadata={"file_path": srv.sample(name), "file_name": name})]


def pdf_reader(name):
    """SimpleDirectoryReader with PDFReader: one Document a page, metadata page_label (from 1)."""
    return [TextNode(p, metadata={"file_path": srv.sample(name), "file_name": name, "page_label": str(i + 1)})
            for i, p in enumerate(srv.read(name).split("\f"))]


def sentence_splitter(documents, size=400):
    """SentenceSplitter.get_nodes_from_documents: start_char_idx/end_char_idx count in each document."""
    out = []
    for d in documents:
        for start, text in srv.split(d.text, size):
            out.append(TextNode(text, start, start + len(text), dict(d.metadata)))
    return out


class LlamaIndexTest(unittest.TestCase):
    def setUp(self):
        self.c = Client(S.url)

    def test_manifest_shape(self):
        nodes = sentence_splitter(pdf_reader("credit-agreement-summary.txt"))
        line = li.nodes_to_manifest(nodes)[1]
        self.assertEqual(line["id_"], nodes[1].node_id)
        self.assertEqual((line["start_char_idx"], line["end_char_idx"]), (nodes[1].start_char_idx, nodes[1].end_char_idx))
        self.assertEqual(line["text"], nodes[1].text)
        self.assertEqual(line["metadata"]["page_label"], nodes[1].metadata["page_label"])

    def test_document_offsets(self):
        nodes = sentence_splitter(reader("data-retention.md"))
        imp = li.import_nodes(self.c, nodes, document_id="li/data-retention.md")
        res = imp.results["li/data-retention.md"]
        self.assertEqual((res.status, res.chunks_format, res.offsets), ("ingested", "llamaindex", "document"))
        recs = {r.external_id: r for r in self.c.iter_chunks("li/data-retention.md")}
        self.assertEqual(set(recs), {n.node_id for n in nodes})  # the node ids are the external ids
        for n, item in zip(nodes, imp.items):
            self.assertEqual(recs[n.node_id].chunk_id, item.metadata["chunk_id"])
            self.assertEqual(recs[n.node_id].text, n.text)

    def test_page_offsets_and_labels(self):
        docs = pdf_reader("credit-agreement-summary.txt")
        nodes = sentence_splitter(docs)
        imp = li.import_nodes(self.c, nodes, document_id="li/credit", documents=docs)
        res = imp.results["li/credit"]
        self.assertEqual(res.offsets, "page")
        self.assertEqual(len(imp.items), len(nodes))
        for n, item in zip(nodes, imp.items):
            r = self.c.resolve(item.metadata["chunk_id"])
            self.assertEqual(str(r.page_number), n.metadata["page_label"])
            self.assertEqual(r.text, n.text)

    def test_postprocessor_drops_quarantined(self):
        nodes = sentence_splitter(reader("expense-policy.md"))
        drifted = nodes[1]
        nodes[1] = TextNode(drifted.text, drifted.start_char_idx + 9, drifted.end_char_idx + 9, drifted.metadata)
        imp = li.import_nodes(self.c, nodes, document_id="li/expense-policy.md", max_quarantined="20%")
        self.assertEqual(len(imp.quarantined), 1)
        self.assertEqual(imp.quarantined[0].metadata["evidence_quarantine"], "text_mismatch")
        # an index that holds every node, the quarantined one too, retrieves them all
        retrieved = [NodeWithScore(n, 1.0 - i / 100) for i, n in enumerate(imp.items[:3] + imp.quarantined)]
        post = li.EvidencePostprocessor(self.c)
        kept = post.postprocess_nodes(retrieved)
        self.assertEqual([k.node.metadata["chunk_id"] for k in kept], [n.metadata["chunk_id"] for n in imp.items[:3]])
        self.assertEqual([(d.status, d.node.node.text) for d in post.dropped], [("quarantined", drifted.text)])
        self.assertEqual(post.dropped[0].reason, "text_mismatch")
        # bare nodes, mapped by node id when the index dropped the metadata
        bare = [TextNode(n.text, id_=n.node_id) for n in nodes]
        post = li.EvidencePostprocessor(self.c, chunk_ids=imp.chunk_ids)
        kept = post.postprocess_nodes(bare)
        self.assertEqual(len(kept), len(nodes) - 1)
        self.assertEqual([d.status for d in post.dropped], ["no_chunk_id"])  # quarantined: never served, unmapped
        # a document deleted after indexing: every node is dropped at query time
        self.c.delete("li/expense-policy.md")
        post = li.EvidencePostprocessor(self.c)
        self.assertEqual(post.postprocess_nodes(retrieved), [])
        self.assertEqual({d.status for d in post.dropped}, {"deleted"})

    def test_postprocessor_principal(self):
        nodes = sentence_splitter(reader("data-retention.md"))
        imp = li.import_nodes(self.c, nodes, document_id="li/private.md", acl=["carol@example.com"])
        carol = li.EvidencePostprocessor(self.c, principal="carol@example.com")
        self.assertEqual(len(carol.postprocess_nodes(imp.items)), len(nodes))
        dave = li.EvidencePostprocessor(self.c, principal="dave@example.com")
        self.assertEqual(dave.postprocess_nodes(imp.items), [])
        self.assertEqual({d.status for d in dave.dropped}, {"forbidden"})


if __name__ == "__main__":
    unittest.main()
