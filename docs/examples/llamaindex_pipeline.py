#!/usr/bin/env python3
"""A LlamaIndex-shaped RAG pipeline whose citations evidence checks, end to end:

1. read corpus/sample the LlamaIndex way (SimpleDirectoryReader: one Document a file, or a page for a
   paged file; SentenceSplitter: nodes with start_char_idx/end_char_idx and page_label), import the
   nodes into evidence, and keep each node's evidence id in its metadata;
2. retrieve for a question, then drop through EvidencePostprocessor the nodes whose chunk evidence does
   not serve (quarantined at import, or deleted since): here one node that drifted is indexed anyway,
   and the postprocessor keeps it out of the prompt;
3. prompt an LLM for the claims JSON, parse and repair its reply, verify it;
4. print the disposition and a signed viewer link a reader can open without a token.

With llama-index-core installed it uses its reader and splitter; otherwise stand-ins from the standard
library with LlamaIndex's field names (node.text, node.node_id, start_char_idx, end_char_idx,
metadata.file_path, metadata.page_label). The LLM is a stand-in that answers from the retrieved nodes.
Run against a server: `python3 llamaindex_pipeline.py --server URL`.
"""

import argparse
import json
import os
import re
import sys
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))  # or: pip install ./clients/python

from evidence_client import Client  # noqa: E402
from evidence_client import llamaindex as li  # noqa: E402
from evidence_client.claims import build_prompt, parse_claims  # noqa: E402

try:  # the real framework, when installed
    from llama_index.core import SimpleDirectoryReader
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.core.schema import NodeWithScore

    def read_and_split(corpus):
        docs = SimpleDirectoryReader(corpus, required_exts=[".md", ".txt"]).load_data()
        return docs, SentenceSplitter(chunk_size=256, chunk_overlap=0).get_nodes_from_documents(docs)

    FRAMEWORK = "llama-index"
except ImportError:
    FRAMEWORK = "stand-ins"

    class TextNode:
        """llama_index.core.schema.TextNode's fields."""

        def __init__(self, text, start_char_idx=None, end_char_idx=None, metadata=None):
            self.id_ = str(uuid.uuid4())
            self.text, self.start_char_idx, self.end_char_idx = text, start_char_idx, end_char_idx
            self.metadata = metadata or {}

        @property
        def node_id(self):
            return self.id_

    class NodeWithScore:
        def __init__(self, node, score=None):
            self.node, self.score = node, score

    def read_and_split(corpus, size=500):
        """A reader (one document a page of a form-feed paged file, else a file) and a paragraph
        splitter recording start_char_idx/end_char_idx in each document's text."""
        docs, nodes = [], []
        for name in sorted(os.listdir(corpus)):
            if not name.endswith((".md", ".txt")):
                continue
            path = os.path.join(corpus, name)
            with open(path, encoding="utf-8") as f:
                pages = f.read().split("\f")
            for i, text in enumerate(pages):
                md = {"file_path": path, "file_name": name}
                if len(pages) > 1:
                    md["page_label"] = str(i + 1)
                docs.append(TextNode(text, metadata=md))
                pos, start, end = 0, None, None
                for para in re.split(r"\n\n+", text):
                    if not para.strip():
                        continue
                    at = text.index(para, pos)
                    pos = at + len(para)
                    if start is not None and pos - start > size:
                        nodes.append(TextNode(text[start:end], start, end, dict(md)))
                        start = None
                    start = at if start is None else start
                    end = pos
                if start is not None:
                    nodes.append(TextNode(text[start:end], start, end, dict(md)))
        return docs, nodes


def keyword_retrieve(nodes, query, k=4):
    """A stand-in index: the k nodes sharing most words with the query, as NodeWithScore."""
    words = stems(query)
    scored = [(len(words & stems(n.text)), i, n) for i, n in enumerate(nodes)]
    scored.sort(key=lambda t: (-t[0], t[1]))
    return [NodeWithScore(n, float(s)) for s, _, n in scored[:k]]


STOP = {"the", "a", "an", "of", "to", "is", "are", "be", "must", "what", "when", "how", "long", "and"}


def stems(text):
    """Lower-cased word prefixes (submit, submitted: submi), stop words left out."""
    return {w[:5] for w in re.findall(r"\w+", text.lower()) if w not in STOP}


def sentences(text):
    """The prose sentences of a chunk: headings and table rows left out."""
    for para in re.split(r"\n\s*\n", text):
        lines = [ln for ln in para.splitlines() if ln.strip() and not ln.lstrip().startswith(("#", "|", "---", "==="))]
        for sent in re.split(r"(?<=[.;])\s+", "\n".join(lines)):
            if sent.strip():
                yield sent.strip()


def stand_in_llm(prompt, question):
    """Answers in the claims JSON from the prompt's sources, in single quotes as some models do."""
    sources = re.findall(r"^\[([^\]]+)\] (.*?)(?=\n\n\[|\n\nQuestion:)", prompt, re.S | re.M)
    want = stems(question)
    best = None
    for cid, text in sources:
        for sent in sentences(text):
            score = len(want & stems(sent))
            if best is None or score > best[0]:
                best = (score, cid, sent)
    _, cid, sent = best
    claim = " ".join(sent.split())
    reply = {"answer": claim, "claims": [{"claim_id": "c1", "text": claim, "evidence": [{"chunk_id": cid, "quote": sent}]}]}
    return json.dumps(reply).replace('"', "'")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", default=os.environ.get("EVIDENCE_SERVER", "http://127.0.0.1:8080"))
    ap.add_argument("--corpus", default=os.path.join(ROOT, "corpus", "sample"))
    ap.add_argument("--question", default="How long are authentication and access logs kept?")
    args = ap.parse_args()
    client = Client(args.server)

    # 1. ingest: the nodes, imported per file and checked; one node drifted by a few code points
    docs, nodes = read_and_split(args.corpus)
    victim = next(i for i, n in enumerate(nodes) if "| Security logs |" in n.text)
    nodes[victim].start_char_idx += 3
    nodes[victim].end_char_idx += 3
    imported = li.import_nodes(client, nodes, documents=docs, base=ROOT, max_quarantined=1)
    for doc_id, res in imported.results.items():
        print(f"imported {doc_id}: {res.status}, {res.chunks} chunks, {res.quarantined} quarantined, "
              f"offsets from the {res.offsets}")
    print(f"{len(imported.items)} nodes served, {len(imported.quarantined)} quarantined ({FRAMEWORK})")

    # 2. retrieve from an index that (wrongly) holds the quarantined node too; the postprocessor drops it
    index = imported.items + imported.quarantined
    post = li.EvidencePostprocessor(client)
    retrieved = post.postprocess_nodes(keyword_retrieve(index, args.question))
    for d in post.dropped:
        print(f"dropped a retrieved node: {d.status} ({d.reason})")

    # 3. generate and verify
    chunks = [(n.node.metadata["chunk_id"], n.node.text) for n in retrieved]
    prompt = build_prompt(args.question, chunks)
    parsed = parse_claims(stand_in_llm(prompt, args.question), [c for c, _ in chunks])
    report = client.verify(parsed.request([c for c, _ in chunks], request_id="example-llamaindex",
                                          metadata={"example": "llamaindex_pipeline.py"}))

    # 4. show
    print(f"question: {args.question}")
    print(f"answer: {parsed.answer}")
    print(f"repaired the reply: {', '.join(parsed.repairs) or 'nothing'}")
    print(f"disposition: {report.disposition} (trace {report.trace_id})")
    for claim in report.claims:
        for ev in claim.evidence:
            print(f"  {claim.claim_id} {claim.status}: {ev.document_id} page {ev.page_number}, "
                  f"{' > '.join(ev.section_path)}")
            print(f"  viewer: {ev.viewer_url}")
    if report.disposition != "accept" or not report.viewer_urls() or not post.dropped:
        sys.exit("the example did not drop the quarantined node and accept the answer with a viewer link")


if __name__ == "__main__":
    main()
