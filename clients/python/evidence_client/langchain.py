"""LangChain adapters. LangChain is imported only by the ``to_langchain`` helpers, never at import time, so
this module works (and is tested) without it: anything with LangChain's field names will do.

- :func:`documents_to_manifest`: ``Document`` objects from a splitter's ``split_documents()`` to a
  LangChain-shaped manifest (``page_content``, ``metadata.start_index``, ``metadata.page``,
  ``metadata.page_label``, ``id``). Whether ``start_index`` counts from the page (PyPDFLoader, one
  document per page) or from the document (TextLoader) is detected by the server's import, per manifest
  (docs/chunk-import.md); split with ``add_start_index=True``.
- :func:`import_documents`: import those chunks and get back copies that carry ``chunk_id`` in their
  metadata, ready for the vector store (quarantined ones set apart).
- :class:`EvidenceRetriever`: wraps a retriever so every document it returns keeps its ``chunk_id`` and
  the ids retrieved are known for the verification.
- :func:`verify_answer`: parse an LLM's claims reply, verify it against what was retrieved, return the report.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from .claims import CLAIMS_PROMPT, FORMAT_INSTRUCTIONS, ParsedClaims, build_prompt, parse_claims
from .client import Client
from .pipeline import CHUNK_ID_KEY, Imported, import_grouped, json_safe, with_metadata
from .types import VerifyReport

__all__ = ["documents_to_manifest", "page_text", "import_documents", "EvidenceRetriever", "chunk_context",
           "prompt_for", "verify_answer", "to_langchain_retriever", "to_langchain_prompt",
           "to_langchain_output_parser"]


def _doc_id(doc: Any) -> Optional[str]:
    v = getattr(doc, "id", None)
    return str(v) if v else None


def _line(doc: Any, ext_id: Optional[str]) -> Dict[str, Any]:
    line: Dict[str, Any] = {"page_content": doc.page_content, "metadata": json_safe(getattr(doc, "metadata", {}) or {})}
    if ext_id:
        line["id"] = ext_id
    return line


def documents_to_manifest(docs: Iterable[Any]) -> List[Dict[str, Any]]:
    """LangChain ``Document`` objects to manifest lines, one a chunk, in order (ids only where the
    documents have one; :func:`import_documents` gives the others one)."""
    return [_line(d, _doc_id(d)) for d in docs]


def page_text(pages: Sequence[Any]) -> str:
    """The text a PDF loader's page documents (``loader.load()``) hold, pages joined by form feeds: the
    ``text`` to import PyPDFLoader chunks against, so offsets are checked in the text pypdf extracted,
    not in evidence's own extraction of the PDF. Pages in ``metadata.page`` order."""
    ordered = sorted(pages, key=lambda p: (getattr(p, "metadata", {}) or {}).get("page", 0))
    return "\f".join(p.page_content for p in ordered)


def _source(doc: Any) -> Optional[str]:
    return (getattr(doc, "metadata", {}) or {}).get("source")


def import_documents(client: Client, chunks: Sequence[Any], *, source: Optional[str] = None,
                     document_id: Optional[str] = None, pages: Optional[Sequence[Any]] = None,
                     repair: bool = False, max_quarantined: Any = None, acl: Optional[Sequence[str]] = None,
                     url: Optional[str] = None, offsets: Optional[str] = None, base: Optional[str] = None) -> Imported:
    """Imports split documents into evidence, one manifest per source file (``metadata.source``, or
    ``source``); the document id is the source path as LangChain recorded it, relative to ``base`` when
    given (as ``evidence ingest --base``), unless ``document_id``.

    ``pages``: the loader's page documents of a PDF (see :func:`page_text`), sent as the import's
    canonical text. Returns :class:`~evidence_client.pipeline.Imported`: ``items`` are copies of the
    served chunks with ``metadata["chunk_id"]``. An import over ``max_quarantined`` (default 0) raises
    UnprocessableError whose ``result.hint`` says the likely cause."""
    texts: Dict[str, str] = {}
    if pages:
        by_src: Dict[str, List[Any]] = {}
        for p in pages:
            by_src.setdefault(source or _source(p) or "", []).append(p)
        texts = {k: page_text(v) for k, v in by_src.items()}
    return import_grouped(client, chunks, source_of=_source, to_line=_line, own_id=_doc_id, source=source,
                          document_id=document_id, texts=texts, chunks_format="langchain", repair=repair,
                          max_quarantined=max_quarantined, acl=acl, url=url, offsets=offsets, base=base)


class EvidenceRetriever:
    """Wraps a LangChain retriever (anything with ``invoke`` or ``get_relevant_documents``) so every
    document it returns carries ``metadata["chunk_id"]``, looked up by the document's ``id`` in
    ``chunk_ids`` (external id -> chunk id, e.g. ``Imported.chunk_ids``) when the vector store dropped
    it. Documents without a chunk id cannot be cited and are left out unless ``keep_unmapped``.
    ``last_retrieved`` holds the chunk ids of the last call, in order: the verification's ``retrieved``."""

    def __init__(self, retriever: Any, chunk_ids: Optional[Mapping[str, str]] = None, keep_unmapped: bool = False):
        self.retriever = retriever
        self.chunk_ids = dict(chunk_ids or {})
        self.keep_unmapped = keep_unmapped
        self.last_retrieved: List[str] = []

    def invoke(self, query: str, config: Any = None, **kwargs: Any) -> List[Any]:
        if hasattr(self.retriever, "invoke"):
            docs = self.retriever.invoke(query, config, **kwargs) if config is not None \
                else self.retriever.invoke(query, **kwargs)
        else:
            docs = self.retriever.get_relevant_documents(query, **kwargs)
        return self._keep(docs)

    get_relevant_documents = invoke

    def _keep(self, docs: Iterable[Any]) -> List[Any]:
        out, ids = [], []
        for d in docs:
            md = getattr(d, "metadata", None) or {}
            cid = md.get(CHUNK_ID_KEY) or self.chunk_ids.get(_doc_id(d) or "") \
                or self.chunk_ids.get(md.get("evidence_external_id", ""))
            if not cid:
                if self.keep_unmapped:
                    out.append(d)
                continue
            if md.get(CHUNK_ID_KEY) != cid:
                d = with_metadata(d, {CHUNK_ID_KEY: cid})
            out.append(d)
            if cid not in ids:
                ids.append(cid)
        self.last_retrieved = ids
        return out


def chunk_context(docs: Iterable[Any]) -> List[Tuple[str, str]]:
    """(chunk_id, text) of each retrieved document that has a chunk id: the prompt's sources."""
    return [(d.metadata[CHUNK_ID_KEY], d.page_content) for d in docs
            if (getattr(d, "metadata", None) or {}).get(CHUNK_ID_KEY)]


def prompt_for(question: str, docs: Iterable[Any]) -> str:
    """The claims prompt (:data:`~evidence_client.claims.CLAIMS_PROMPT`) for a question and retrieved docs."""
    return build_prompt(question, chunk_context(docs))


def verify_answer(client: Client, reply: str, docs: Sequence[Any], *, request_id: Optional[str] = None,
                  principal: Optional[str] = None, metadata: Optional[Dict[str, Any]] = None,
                  trace: bool = True) -> Tuple[VerifyReport, ParsedClaims]:
    """Parses an LLM's claims reply (repairing near-miss JSON), verifies it against the chunk ids of the
    retrieved ``docs`` and returns the report with what was parsed. The report's ``disposition`` says
    what to show (accept, partial, ...), each evidence item's ``viewer_url`` a signed link to it."""
    retrieved = [cid for cid, _ in chunk_context(docs)]
    parsed = parse_claims(reply, retrieved)
    req = parsed.request(retrieved, request_id=request_id, principal=principal, metadata=metadata)
    return client.verify(req, trace=trace), parsed


# ---- LangChain objects, built only when LangChain is installed ----


def _need(module: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(f"{module} is not installed (pip install langchain-core): the evidence_client "
                          f"LangChain objects need it; the plain functions of this module do not") from e


def to_langchain_retriever(wrapper: EvidenceRetriever) -> Any:
    """A ``langchain_core`` BaseRetriever around an :class:`EvidenceRetriever`, for LCEL chains."""
    retrievers = _need("langchain_core.retrievers")

    class _Retriever(retrievers.BaseRetriever):  # type: ignore[misc, name-defined]
        def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> List[Any]:
            return wrapper.invoke(query)

    return _Retriever()


def to_langchain_prompt() -> Any:
    """The claims prompt as a ``langchain_core`` PromptTemplate (variables ``question``, ``context``;
    fill ``context`` with :func:`~evidence_client.claims.format_context`)."""
    prompts = _need("langchain_core.prompts")
    return prompts.PromptTemplate.from_template(CLAIMS_PROMPT)


def to_langchain_output_parser(retrieved: Optional[Sequence[str]] = None) -> Any:
    """A ``langchain_core`` output parser whose ``parse`` returns :class:`ParsedClaims`."""
    parsers = _need("langchain_core.output_parsers")
    ids = list(retrieved) if retrieved is not None else None

    class _Parser(parsers.BaseOutputParser):  # type: ignore[misc, name-defined]
        def parse(self, text: str) -> ParsedClaims:
            return parse_claims(text, ids)

        def get_format_instructions(self) -> str:
            return FORMAT_INSTRUCTIONS

    return _Parser()

