"""A prompt that makes an LLM answer in the claims JSON, and a parser that reads it back.

The verifier (``POST /v1/verify``) reads claims, each with the chunk ids it
cites and the words it quotes from them (docs/contract.md). The prompt shows
the model the retrieved chunks under their ids and asks for exactly that
JSON; :func:`parse_claims` reads the reply, repairing the near misses models
make (a code fence around it, prose before or after it, trailing commas,
single-quoted strings, Python's True/False/None, typographic quotes as
delimiters), and builds a :class:`~evidence_client.types.VerifyRequest`.

What the parser never does is decide what is true: a chunk id outside the
retrieved set is kept as cited (and listed in ``unknown_chunk_ids``), so
the verifier blocks that claim as "not retrieved" instead of the claim
silently losing its citation.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from .types import Claim, Evidence, VerifyRequest

#: The template's placeholders are ``{question}`` and ``{context}`` (str.format).
CLAIMS_PROMPT = """\
Answer the question using only the sources below. Each source starts with its id in square brackets.

Sources:
{context}

Question: {question}

Reply with one JSON object and nothing else, in this shape:
{{"answer": "the whole answer as prose",
 "claims": [{{"claim_id": "c1", "text": "one factual statement of the answer",
             "evidence": [{{"chunk_id": "an id from the sources", "quote": "words copied exactly from that source"}}]}}]}}
Rules:
- Split the answer into claims, one statement each; every claim cites the source(s) it comes from.
- chunk_id must be one of the ids in square brackets above; never invent an id.
- quote copies the supporting words from that source exactly, including numbers, dates and units.
- If the sources do not answer the question, reply {{"answer": "", "claims": []}}.
"""

FORMAT_INSTRUCTIONS = (
    'Reply with one JSON object: {"answer": str, "claims": [{"claim_id": str, "text": str, '
    '"evidence": [{"chunk_id": str (one of the source ids), "quote": str (copied exactly)}]}]}.'
)


class ClaimsParseError(ValueError):
    """The reply holds no JSON object of the claims shape, even after repair; ``text`` is the reply."""

    def __init__(self, message: str, text: str):
        super().__init__(message)
        self.text = text


@dataclass
class ParsedClaims:
    """What :func:`parse_claims` read: the claims, the answer prose, and what it had to repair."""

    claims: List[Claim]
    answer: str = ""
    #: repairs applied, in order ("code_fence", "surrounding_text", "trailing_comma", ...); [] for clean JSON
    repairs: List[str] = field(default_factory=list)
    #: cited ids not in the retrieved set (kept: the verifier blocks such claims)
    unknown_chunk_ids: List[str] = field(default_factory=list)

    def request(self, retrieved: Sequence[str], request_id: Optional[str] = None, principal: Optional[str] = None,
                metadata: Optional[Dict[str, Any]] = None) -> VerifyRequest:
        """The verification request for these claims and the chunks retrieval returned."""
        return VerifyRequest(request_id=request_id, principal=principal, retrieved=list(retrieved),
                             answer=self.answer or None, claims=self.claims, metadata=metadata)


def format_context(chunks: Iterable[Tuple[str, str]]) -> str:
    """The prompt's sources: ``[chunk_id] text`` for each (chunk_id, text) pair, blank-line separated."""
    return "\n\n".join(f"[{cid}] {text.strip()}" for cid, text in chunks)


def build_prompt(question: str, chunks: Iterable[Tuple[str, str]], template: str = CLAIMS_PROMPT) -> str:
    """:data:`CLAIMS_PROMPT` filled with the question and the retrieved (chunk_id, text) pairs."""
    return template.format(question=question, context=format_context(chunks))


_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\r?\n?(.*?)```", re.S)


def parse_claims(text: str, retrieved: Optional[Sequence[str]] = None) -> ParsedClaims:
    """Reads an LLM's reply into claims, repairing near-miss JSON; raises ClaimsParseError when there is
    no claims object in it.

    Accepted shapes: ``{"answer", "claims": [...]}``, a bare list of claims, and evidence given as
    ``"citations"`` or as a list of chunk ids. Claims without ``claim_id`` are numbered c1, c2, ...; ids are
    stripped of the brackets the prompt shows them in."""
    obj, repairs = _load(text)
    if isinstance(obj, list):
        obj = {"claims": obj}
    if not isinstance(obj, dict) or not isinstance(obj.get("claims", []), list):
        raise ClaimsParseError("the reply is not an object with a claims list", text)
    known = set(retrieved) if retrieved is not None else None
    claims: List[Claim] = []
    unknown: List[str] = []
    seen_ids = set()
    for i, c in enumerate(obj.get("claims") or [], 1):
        if isinstance(c, str):
            c = {"text": c}
        if not isinstance(c, dict):
            raise ClaimsParseError(f"claim {i} is not an object", text)
        ctext = c.get("text") or c.get("claim") or c.get("statement")
        if not isinstance(ctext, str) or not ctext.strip():
            raise ClaimsParseError(f"claim {i} has no text", text)
        cid = str(c.get("claim_id") or c.get("id") or f"c{i}")
        while cid in seen_ids:
            cid += "'"
        seen_ids.add(cid)
        ev: List[Evidence] = []
        raw_ev = c.get("evidence", c.get("citations", []))
        if isinstance(raw_ev, (str, dict)):
            raw_ev = [raw_ev]
        for j, e in enumerate(raw_ev or [], 1):
            if isinstance(e, str):
                e = {"chunk_id": e}
            if not isinstance(e, dict) or not e.get("chunk_id"):
                raise ClaimsParseError(f"claim {i} evidence {j} has no chunk_id", text)
            chunk = str(e["chunk_id"]).strip().strip("[]").strip()
            if known is not None and chunk not in known and chunk not in unknown:
                unknown.append(chunk)
            quote = e.get("quote")
            ev.append(Evidence(chunk_id=chunk, quote=quote if isinstance(quote, str) and quote else None))
        claims.append(Claim(claim_id=cid, text=ctext.strip(), evidence=ev))
    answer = obj.get("answer")
    return ParsedClaims(claims=claims, answer=answer if isinstance(answer, str) else "", repairs=repairs,
                        unknown_chunk_ids=unknown)


def repair_json(text: str) -> Tuple[str, List[str]]:
    """The JSON text inside a model's reply, with near misses repaired, and the repairs made.

    Handles: a Markdown code fence; prose before or after the object; trailing commas; single-quoted
    strings; Python literals True, False, None; typographic double quotes used as delimiters."""
    repairs: List[str] = []
    s = text.strip()
    m = _FENCE.search(s)
    if m:
        s = m.group(1).strip()
        repairs.append("code_fence")
    start = min([i for i in (s.find("{"), s.find("[")) if i >= 0], default=-1)
    if start < 0:
        return s, repairs
    end = _balanced_end(s, start)
    if start > 0 or end < len(s):
        repairs.append("surrounding_text")
    s = s[start:end]
    out, fixes = _rewrite(s)
    repairs += fixes
    return out, repairs


def _load(text: str) -> Tuple[Any, List[str]]:
    try:
        return json.loads(text), []
    except ValueError:
        pass
    s, repairs = repair_json(text)
    try:
        return json.loads(s), repairs
    except ValueError as e:
        raise ClaimsParseError(f"no JSON object in the reply, even after repair ({', '.join(repairs) or 'none'}): {e}",
                               text) from e


_OPEN = {"{": "}", "[": "]"}
_QUOTES = {'"': '"', "'": "'", "\u201c": "\u201d"}


def _balanced_end(s: str, start: int) -> int:
    """The end of the bracketed value starting at start (the whole rest when it never closes)."""
    depth, q, i = 0, "", start
    while i < len(s):
        ch = s[i]
        if q:
            if ch == "\\":
                i += 1
            elif ch == q and _closes(s, i, q):
                q = ""
        elif ch in _QUOTES:
            q = _QUOTES[ch]
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(s)


def _closes(s: str, j: int, q: str) -> bool:
    """Whether the quote at j closes a string: always for a double or typographic quote; for a single
    quote only before a delimiter, so the apostrophe of "the company's" stays inside the string."""
    if q != "'":
        return True
    k = j + 1
    while k < len(s) and s[k] in " \t\r\n":
        k += 1
    return k == len(s) or s[k] in ",:}]"


def _rewrite(s: str) -> Tuple[str, List[str]]:
    """Rewrites single-quoted and typographic strings as JSON strings, drops trailing commas and maps
    Python literals, outside strings only."""
    out: List[str] = []
    fixes: List[str] = []
    i, n = 0, len(s)

    def fix(name: str) -> None:
        if name not in fixes:
            fixes.append(name)

    while i < n:
        ch = s[i]
        if ch in _QUOTES:
            close = _QUOTES[ch]
            j = i + 1
            buf: List[str] = []
            while j < n and not (s[j] == close and _closes(s, j, close)):
                if s[j] == "\\" and j + 1 < n:
                    nxt = s[j + 1]
                    if nxt == "'":  # JSON has no \' escape
                        buf.append("'")
                    else:
                        buf.append(s[j:j + 2])
                    j += 2
                    continue
                if s[j] == '"' and ch != '"':
                    buf.append('\\"')
                elif s[j] == "\n":
                    buf.append("\\n")
                    fix("newline_in_string")
                else:
                    buf.append(s[j])
                j += 1
            if ch == "'":
                fix("single_quotes")
            elif ch != '"':
                fix("typographic_quotes")
            out.append('"' + "".join(buf) + '"')
            i = j + 1
            continue
        if ch == ",":
            k = i + 1
            while k < n and s[k] in " \t\r\n":
                k += 1
            if k < n and s[k] in "}]":
                fix("trailing_comma")
                i += 1
                continue
        if ch.isalpha():
            k = i
            while k < n and (s[k].isalnum() or s[k] == "_"):
                k += 1
            word = s[i:k]
            lit = {"True": "true", "False": "false", "None": "null"}.get(word)
            if lit:
                fix("python_literals")
                word = lit
            out.append(word)
            i = k
            continue
        out.append(ch)
        i += 1
    return "".join(out), fixes
