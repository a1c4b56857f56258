"""What the framework adapters share: importing one framework's chunks of a source, and tying each chunk
back to the chunk id evidence gave it.

A framework chunk is tied to its evidence chunk by its id in the manifest, which the server keeps as the
record's ``external_id``: the framework's own id when it has one, else ``DOCUMENT_ID#N`` (N its position
among the source's chunks). Nothing here imports a framework.
"""

from __future__ import annotations

import copy
import os
import json
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from .client import Client
from .types import IngestResult

#: the metadata key adapters put a chunk's evidence id under
CHUNK_ID_KEY = "chunk_id"
#: the metadata key of a quarantined chunk's reason code
QUARANTINE_KEY = "evidence_quarantine"


@dataclass
class Imported:
    """The outcome of importing a framework's chunks.

    ``items`` are copies of the chunks that evidence serves, in input order, each with ``chunk_id`` in its
    metadata: what to put in the vector store. ``quarantined`` are copies of those it quarantined, with the
    quarantined chunk's id and the reason (``evidence_quarantine``) in their metadata: keep them out of the
    index. ``results`` is the server's ingest result per document id."""

    items: List[Any] = field(default_factory=list)
    quarantined: List[Any] = field(default_factory=list)
    results: Dict[str, IngestResult] = field(default_factory=dict)

    @property
    def chunk_ids(self) -> Dict[str, str]:
        """external id -> chunk id of every served chunk (what a retriever wrapper maps through)."""
        out = {}
        for it in self.items:
            md = _metadata(it)
            if md.get("evidence_external_id"):
                out[md["evidence_external_id"]] = md[CHUNK_ID_KEY]
        return out


def json_safe(md: Mapping[str, Any]) -> Dict[str, Any]:
    """The metadata values JSON can carry (str, numbers, bools, None, and lists and dicts of them)."""
    out = {}
    for k, v in md.items():
        try:
            json.dumps(v, allow_nan=False)
        except (TypeError, ValueError):
            continue
        if isinstance(v, float) and not math.isfinite(v):
            continue
        out[str(k)] = v
    return out


def _metadata(item: Any) -> Dict[str, Any]:
    md = getattr(item, "metadata", None)
    return md if isinstance(md, dict) else {}


def with_metadata(item: Any, updates: Mapping[str, Any]) -> Any:
    """A shallow copy of a framework object whose metadata dict has the updates (the input is untouched)."""
    md = dict(_metadata(item))
    md.update(updates)
    mc = getattr(item, "model_copy", None)  # pydantic v2 (langchain-core, llama-index-core)
    if callable(mc):
        try:
            return mc(update={"metadata": md})
        except TypeError:
            pass
    out = copy.copy(item)
    out.metadata = md
    return out


def import_grouped(client: Client, items: Sequence[Any], *, source_of: Callable[[Any], Optional[str]],
                   to_line: Callable[[Any, str], Dict[str, Any]], own_id: Callable[[Any], Optional[str]],
                   source: Optional[str], document_id: Optional[str], texts: Mapping[str, str],
                   chunks_format: str, base: Optional[str] = None, **import_kw: Any) -> Imported:
    """Imports items grouped by source file, one manifest per source, and annotates each item."""
    groups: Dict[str, List[Tuple[int, Any]]] = {}
    for i, it in enumerate(items):
        src = source or source_of(it)
        if not src:
            raise ValueError(f"chunk {i} names no source file (metadata): pass source=PATH")
        groups.setdefault(src, []).append((i, it))
    if document_id and len(groups) > 1:
        raise ValueError(f"document_id given for {len(groups)} sources ({', '.join(sorted(groups))}): import them one by one")
    out = Imported()
    placed: Dict[int, Tuple[bool, Any]] = {}
    for src, members in groups.items():
        doc_id = document_id or (os.path.relpath(src, base).replace(os.sep, "/") if base else src)
        ext_ids = []
        lines = []
        for n, (_, it) in enumerate(members):
            ext = own_id(it) or f"{doc_id}#{n}"
            ext_ids.append(ext)
            lines.append(to_line(it, ext))
        if len(set(ext_ids)) != len(ext_ids):
            raise ValueError(f"{src}: two chunks have the same id; give each its own or none")
        res = client.import_manifest(src, lines, document_id=doc_id, text=texts.get(src),
                                     chunks_format=chunks_format, **import_kw)
        out.results[doc_id] = res
        served = {r.external_id: r.chunk_id for r in client.iter_chunks(doc_id, version=res.document_version)
                  if r.external_id}
        held = {}
        if res.quarantined:
            for q in client.quarantine(document=doc_id, version=res.document_version).chunks:
                if q.external_id:
                    held[q.external_id] = (q.chunk_id, q.reason)
        for (i, it), ext in zip(members, ext_ids):
            if ext in served:
                placed[i] = (True, with_metadata(it, {CHUNK_ID_KEY: served[ext], "evidence_external_id": ext}))
            else:
                cid, reason = held.get(ext, ("", "not_found"))
                upd = {QUARANTINE_KEY: reason, "evidence_external_id": ext}
                if cid:
                    upd[CHUNK_ID_KEY] = cid
                placed[i] = (False, with_metadata(it, upd))
    for i in sorted(placed):
        ok, it = placed[i]
        (out.items if ok else out.quarantined).append(it)
    return out
