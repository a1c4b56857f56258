"""LlamaIndex adapters. LlamaIndex is imported only by :func:`to_llamaindex_postprocessor`, never at import
time, so this module works (and is tested) without it: anything with LlamaIndex's field names will do.

- :func:`nodes_to_manifest`: nodes from a node parser (``TextNode``: ``text``, ``start_char_idx``,
  ``end_char_idx``, ``metadata.page_label``, ``node_id``) to a LlamaIndex-shaped manifest. Offsets from a
  PDF reader's page documents count from the page, from a whole-file document from the document; the
  server's import detects which (docs/chunk-import.md).
- :func:`import_nodes`: import them and get back copies with ``metadata["chunk_id"]`` (quarantined ones
  set apart, with the reason).
- :class:`EvidencePostprocessor`: a node postprocessor that drops retrieved nodes whose chunk evidence
  quarantined (or that are deleted, forbidden to the principal, or unknown), asking the server at query
  time, so a node indexed before its chunk was quarantined never reaches the prompt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

from .client import Client
from .pipeline import CHUNK_ID_KEY, Imported, import_grouped, json_safe
from .types import SERVED_STATUSES

__all__ = ["nodes_to_manifest", "document_text", "import_nodes", "EvidencePostprocessor", "Dropped",
           "to_llamaindex_postprocessor"]


def _node_id(node: Any) -> Optional[str]:
    v = getattr(node, "node_id", None) or getattr(node, "id_", None)
    return str(v) if v else None


def _text(node: Any) -> str:
    t = getattr(node, "text", None)
    if isinstance(t, str):
        return t
    return node.get_content()


def _line(node: Any, ext_id: Optional[str]) -> Dict[str, Any]:
    line: Dict[str, Any] = {"text": _text(node), "metadata": json_safe(getattr(node, "metadata", {}) or {})}
    for k in ("start_char_idx", "end_char_idx"):
        v = getattr(node, k, None)
        if v is not None:
            line[k] = v
    if ext_id:
        line["id_"] = ext_id
    return line


def nodes_to_manifest(nodes: Iterable[Any]) -> List[Dict[str, Any]]:
    """LlamaIndex nodes to manifest lines, one a node, in order."""
    return [_line(n, _node_id(n)) for n in nodes]


def _source(node: Any) -> Optional[str]:
    md = getattr(node, "metadata", {}) or {}
    return md.get("file_path") or md.get("source")


def document_text(documents: Sequence[Any]) -> str:
    """The text a reader's documents of one file hold, joined by form feeds (a PDF reader makes one a
    page, in page order): the ``text`` to import the nodes against, so offsets are checked in the text
    the reader extracted rather than in evidence's own extraction."""
    return "\f".join(_text(d) for d in documents)


def import_nodes(client: Client, nodes: Sequence[Any], *, source: Optional[str] = None,
                 document_id: Optional[str] = None, documents: Optional[Sequence[Any]] = None,
                 repair: bool = False, max_quarantined: Any = None, acl: Optional[Sequence[str]] = None,
                 url: Optional[str] = None, offsets: Optional[str] = None, base: Optional[str] = None) -> Imported:
    """Imports nodes into evidence, one manifest per source file (``metadata.file_path``, or ``source``);
    the document id is that path (relative to ``base`` when given) unless ``document_id``. ``documents``: the reader's documents, sent as
    the canonical text (see :func:`document_text`). ``items`` of the result are copies of the served
    nodes with ``metadata["chunk_id"]``; ``quarantined`` those evidence quarantined."""
    texts: Dict[str, str] = {}
    if documents:
        by_src: Dict[str, List[Any]] = {}
        for d in documents:
            by_src.setdefault(source or _source(d) or "", []).append(d)
        texts = {k: document_text(v) for k, v in by_src.items()}
    return import_grouped(client, nodes, source_of=_source, to_line=_line, own_id=_node_id, source=source,
                          document_id=document_id, texts=texts, chunks_format="llamaindex", repair=repair,
                          max_quarantined=max_quarantined, acl=acl, url=url, offsets=offsets, base=base)


@dataclass
class Dropped:
    """A node the postprocessor left out, and why: the resolution's status (quarantined, deleted,
    forbidden, not_found) or ``no_chunk_id``, and the server's reason."""

    node: Any
    status: str
    reason: str = ""


@dataclass
class EvidencePostprocessor:
    """Drops retrieved nodes (``NodeWithScore`` or bare nodes) whose chunk evidence does not serve:
    quarantined above all, and deleted, forbidden to ``principal``, or unknown. The chunk id is the
    node's ``metadata["chunk_id"]``, else ``chunk_ids[node_id]``; a node with neither cannot be cited and
    is dropped (``no_chunk_id``) unless ``keep_unmapped``. One ``POST /v1/resolve`` per call (1,000
    chunks a request). ``dropped`` lists what the last call left out."""

    client: Client
    chunk_ids: Mapping[str, str] = field(default_factory=dict)
    principal: Optional[str] = None
    keep_unmapped: bool = False
    dropped: List[Dropped] = field(default_factory=list)

    def postprocess_nodes(self, nodes: Sequence[Any], query_bundle: Any = None, query_str: Optional[str] = None) -> List[Any]:
        self.dropped = []
        ids: List[Optional[str]] = []
        for n in nodes:
            inner = getattr(n, "node", n)
            md = getattr(inner, "metadata", None) or {}
            ids.append(md.get(CHUNK_ID_KEY) or self.chunk_ids.get(_node_id(inner) or ""))
        wanted = sorted({i for i in ids if i})
        status: Dict[str, Any] = {}
        for k in range(0, len(wanted), 1000):
            batch = wanted[k:k + 1000]
            res = self.client.resolve_citations(batch, principal=self.principal)
            for cid, r in zip(batch, res.results):
                status[cid] = r
        kept = []
        for n, cid in zip(nodes, ids):
            if not cid:
                if self.keep_unmapped:
                    kept.append(n)
                else:
                    self.dropped.append(Dropped(n, "no_chunk_id", "the node has no evidence chunk id"))
                continue
            r = status[cid]
            if r.status in SERVED_STATUSES:
                kept.append(n)
            else:
                self.dropped.append(Dropped(n, r.status, r.reason or ""))
        return kept


def to_llamaindex_postprocessor(p: EvidencePostprocessor) -> Any:
    """A ``llama_index.core`` BaseNodePostprocessor around an :class:`EvidencePostprocessor`, for
    ``index.as_query_engine(node_postprocessors=[...])``."""
    import importlib

    try:
        base = importlib.import_module("llama_index.core.postprocessor.types")
    except ImportError as e:
        raise ImportError("llama_index.core is not installed (pip install llama-index-core): "
                          "to_llamaindex_postprocessor needs it; EvidencePostprocessor does not") from e

    class _Post(base.BaseNodePostprocessor):  # type: ignore[misc, name-defined]
        def _postprocess_nodes(self, nodes: List[Any], query_bundle: Any = None) -> List[Any]:
            return p.postprocess_nodes(nodes, query_bundle)

    return _Post()

