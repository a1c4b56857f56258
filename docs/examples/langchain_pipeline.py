#!/usr/bin/env python3
"""A LangChain-shaped RAG pipeline whose citations evidence checks, end to end:

1. load and split corpus/sample the LangChain way (TextLoader, RecursiveCharacterTextSplitter with
   add_start_index=True), import the chunks into evidence, and keep each chunk's evidence id in its
   metadata (the HTML page is uploaded for evidence to cut itself, as a pipeline may do for one format);
2. retrieve for a question through EvidenceRetriever, so every document keeps its chunk_id;
3. prompt an LLM for the claims JSON, parse and repair its reply, verify it;
4. print the disposition and a signed viewer link a reader can open without a token.

With langchain-community and langchain-text-splitters installed it uses them; otherwise stand-ins from
the standard library with LangChain's field names (page_content, metadata.source, metadata.start_index).
The LLM here is a stand-in that answers from the retrieved chunks (swap in your chat model: its reply
goes to verify_answer as text). Run against a server: `python3 langchain_pipeline.py --server URL`.
"""

import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))  # or: pip install ./clients/python

from evidence_client import Client  # noqa: E402
from evidence_client import langchain as lc  # noqa: E402

try:  # the real framework, when installed
    from langchain_community.document_loaders import TextLoader
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    def split_file(path):
        splitter = RecursiveCharacterTextSplitter(chunk_size=500, chunk_overlap=100, add_start_index=True)
        return splitter.split_documents(TextLoader(path, encoding="utf-8").load())

    FRAMEWORK = "langchain"
except ImportError:
    FRAMEWORK = "stand-ins"

    class Document:
        """langchain_core.documents.Document's fields."""

        def __init__(self, page_content, metadata=None, id=None):
            self.page_content, self.metadata, self.id = page_content, metadata or {}, id

    def split_file(path, size=500):
        """TextLoader + a paragraph splitter that records start_index as add_start_index=True does."""
        with open(path, encoding="utf-8") as f:
            text = f.read()
        docs, pos, cur, cur_start = [], 0, "", 0
        for para in re.split(r"\n\n+", text):
            if not para.strip():
                continue
            at = text.index(para, pos)
            pos = at + len(para)
            if cur and at + len(para) - cur_start > size:
                docs.append(Document(cur, {"source": path, "start_index": cur_start}))
                cur = ""
            if not cur:
                cur, cur_start = para, at
            else:
                cur = text[cur_start:at + len(para)]
        if cur:
            docs.append(Document(cur, {"source": path, "start_index": cur_start}))
        return docs


class KeywordRetriever:
    """A stand-in vector store retriever: the k documents sharing most words with the query."""

    def __init__(self, docs, k=3):
        self.docs, self.k = docs, k

    def invoke(self, query, **_):
        words = stems(query)
        scored = sorted(self.docs, key=lambda d: -len(words & stems(d.page_content)))
        return scored[: self.k]


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
    """Answers from the prompt's sources the way a chat model told to reply in claims JSON does, near
    misses included (a code fence and trailing commas, which the parser repairs)."""
    sources = re.findall(r"^\[([^\]]+)\] (.*?)(?=\n\n\[|\n\nQuestion:)", prompt, re.S | re.M)
    want = stems(question)
    best = None
    for cid, text in sources:
        for sent in sentences(text):
            score = len(want & stems(sent))
            if best is None or score > best[0]:
                best = (score, cid, sent)
    _, cid, sent = best
    text = " ".join(sent.split())
    claim = {"claim_id": "c1", "text": text, "evidence": [{"chunk_id": cid, "quote": sent}]}
    body = json.dumps({"answer": text, "claims": [claim]}, indent=2).replace("}\n  ]", "},\n  ]")
    return "```json\n" + body + "\n```"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", default=os.environ.get("EVIDENCE_SERVER", "http://127.0.0.1:8080"))
    ap.add_argument("--corpus", default=os.path.join(ROOT, "corpus", "sample"))
    ap.add_argument("--question", default="When must expense reports be submitted?")
    args = ap.parse_args()
    client = Client(args.server)  # EVIDENCE_TOKEN: a service token, when the server has --tokens

    # 1. ingest: LangChain's own chunks of the text files, imported and checked; the HTML cut by evidence
    chunks = []
    for name in sorted(os.listdir(args.corpus)):
        path = os.path.join(args.corpus, name)
        if name.endswith((".md", ".txt")):
            chunks += split_file(path)
        elif name.endswith(".html"):
            res = client.ingest(path, document_id=os.path.relpath(path, ROOT))
            print(f"ingested {res.document_id}: {res.status}, {res.chunks} chunks (cut by evidence)")
    # document ids relative to the repository, as `evidence ingest --base` derives them
    imported = lc.import_documents(client, chunks, base=ROOT)
    for doc_id, res in imported.results.items():
        print(f"imported {doc_id}: {res.status}, {res.chunks} chunks, {res.quarantined} quarantined, "
              f"offsets from the {res.offsets}")
    print(f"{len(imported.items)} chunks to index with their chunk_id ({FRAMEWORK})")

    # 2. retrieve: the vector store holds imported.items; the wrapper keeps chunk_id on every document
    retriever = lc.EvidenceRetriever(KeywordRetriever(imported.items), imported.chunk_ids)
    docs = retriever.invoke(args.question)

    # 3. generate and verify
    prompt = lc.prompt_for(args.question, docs)
    reply = stand_in_llm(prompt, args.question)
    report, parsed = lc.verify_answer(client, reply, docs, request_id="example-langchain",
                                      metadata={"example": "langchain_pipeline.py"})

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
    if report.disposition != "accept" or not report.viewer_urls():
        sys.exit("the example answer was not accepted with a viewer link")


if __name__ == "__main__":
    main()
