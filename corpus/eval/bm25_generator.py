#!/usr/bin/env python3
"""A deterministic example generator for `evidence eval run` (docs/eval.md).

It speaks the generator protocol: one JSON request a line on stdin, one JSON
answer a line on stdout, until stdin ends. It retrieves by BM25 over the
store's chunks (the JSON Lines `evidence chunks` exports), filtered by the
request's principal, or over the request's `context` when a probe sends one;
it answers extractively, with the best-matching sentence of the top chunks
as its one claim, quoting it exactly and citing its chunk; and it abstains
when the best chunk scores below --min-score or the sentence holds too few of
the question's words.

With --memory it answers the questions it "knows" from a built-in memory
instead, and only then looks for a passage to cite (post-rationalized
citations): some of what it remembers is right, some is stale, and it answers
questions the documents do not. The verifier, the citation probes and the
gate are meant to catch it.

Python 3 standard library only; the same input gives the same output.
"""

import argparse
import json
import math
import re
import sys

STOPWORDS = set("""
a an and are as at be by can do does for from has have how i if in is it its many may much must
of on or our should that the their there this to under was we what when where which who whom why
will with within you your long kept get gets than per any all
""".split())

TOKEN = re.compile(r"[a-z0-9]+")


def stem(w):
    """A light suffix stripper: plurals, -ed, -ing, a final e, a doubled
    final consonant (submitted, submits and submit meet)."""
    if w.isdigit():
        return w
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    for suffix in ("ing", "ed"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            w = w[: -len(suffix)]
            break
    if len(w) > 4 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 4 and w[-1] == w[-2] and w[-1] not in "aeiouls":
        w = w[:-1]
    return w


def tokens(text):
    return [stem(t) for t in TOKEN.findall(text.lower()) if t not in STOPWORDS]


class BM25:
    """Okapi BM25 with the statistics of the whole chunk export, so that a
    probe's few context chunks score on the same scale as retrieval."""

    def __init__(self, docs, k1=1.2, b=0.75):
        self.k1, self.b = k1, b
        self.n = len(docs)
        self.df = {}
        total = 0
        for d in docs:
            toks = tokens(d["text"])
            total += len(toks)
            for t in set(toks):
                self.df[t] = self.df.get(t, 0) + 1
        self.avgdl = total / self.n if self.n else 1.0

    def idf(self, t):
        df = self.df.get(t, 0)
        return math.log((self.n - df + 0.5) / (df + 0.5) + 1.0)

    def score(self, query, text):
        toks = tokens(text)
        tf = {}
        for t in toks:
            tf[t] = tf.get(t, 0) + 1
        s = 0.0
        for q in sorted(set(query)):  # a fixed order: float sums must not depend on hash seeds
            f = tf.get(q, 0)
            if f:
                s += self.idf(q) * f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * len(toks) / self.avgdl))
        return s


def units(text):
    """The sentences, table rows and list items of a chunk, as (start, end,
    context) where start and end are offsets into it (a quote is its exact
    substring) and context is text that a table row inherits: its table's
    header row and the sentence that introduces the table."""
    raw = []  # (start, end, kind)
    pos = 0
    para = []  # lines of the current prose paragraph: (start, end)

    def flush():
        if not para:
            return
        start, end = para[0][0], para[-1][1]
        s = start
        for m in re.finditer(r"[.!?](?=\s)", text[start:end]):
            e = start + m.end()
            raw.append((s, e, "prose"))
            s = e
        raw.append((s, end, "prose"))
        para.clear()

    for line in text.split("\n"):
        start, end = pos, pos + len(line)
        pos = end + 1
        stripped = line.strip()
        if not stripped:
            flush()
        elif stripped.startswith("|"):
            flush()
            raw.append((start, end, "row"))
        elif stripped.startswith(("#", "- ", "* ")) or line.startswith("    "):
            flush()
            raw.append((start, end, "item"))
        else:
            para.append((start, end))
    flush()
    trimmed = []
    for s, e, kind in raw:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s < e:
            trimmed.append([s, e, kind])
    # A numbered clause title ("1.1 Term Loan A.") belongs to the sentence after it.
    merged = []
    for u in trimmed:
        if merged and merged[-1][2] == "prose" and u[2] == "prose" and HEADING.fullmatch(text[merged[-1][0]:merged[-1][1]]):
            merged[-1][1] = u[1]
        else:
            merged.append(u)
    out = []
    intro, header, prev_kind = "", "", None
    for s, e, kind in merged:
        unit = text[s:e]
        if kind == "row":
            if prev_kind != "row":
                header = unit  # the first row of a table names its columns
                prev_kind = kind
                continue
            ctx = header + " " + intro
        else:
            ctx = ""
            if kind == "prose":
                intro = unit
        prev_kind = kind
        if re.fullmatch(r"[|\-: ]+", unit) or unit.startswith("#") or len(tokens(unit)) < 2:
            continue
        out.append((s, e, ctx))
    return out


HEADING = re.compile(r"\d+(\.\d+)*\s+[^.]{1,60}\.")
CLAUSE = re.compile(r"^\d+(\.\d+)*\s+([^.]{1,60})\.\s+(.*)$", re.S)


def claim_text(unit):
    """The claim a unit makes, as prose: table pipes and list dashes out,
    white space collapsed, a final period."""
    t = unit.strip()
    if t.startswith("- ") or t.startswith("* "):
        t = t[2:]
    m = CLAUSE.match(t)
    if m:
        t = m.group(2) + ": " + m.group(3)
    t = " ".join(t.replace("|", " ").split())
    t = t.rstrip(";,")
    if not t.endswith((".", "!", "?")):
        t += "."
    return t


# What --memory "remembers": the keywords a question must hold, and the claim.
MEMORY = [
    (("expense", "report"), "Expense reports must be submitted within 30 days."),
    (("itemized", "receipt"), "Every claim above EUR 25 needs an itemized receipt."),
    (("london",), "The nightly hotel cap in London is GBP 210."),
    (("per diem",), "Meals on a travel day are covered by a per diem of EUR 75 per day."),
    (("term loan",), "Term Loan A is a USD 250,000,000 amortizing term loan."),
    (("net leverage",), "The Net Leverage Ratio shall not exceed 3.25 to 1.00."),
    (("commitment fee",), "A commitment fee of 0.40% per year accrues on the unused revolving commitments."),
    (("access log",), "Authentication and access logs are kept for 6 months."),
    (("administrator", "password"), "An administrator password must be at least 20 characters."),
    (("supervisory authority",), "The supervisory authority is notified within 72 hours of a personal data breach."),
    (("parental leave",), "Employees get 16 weeks of paid parental leave."),
    (("ceo",), "The CEO's annual salary is EUR 950,000."),
    (("dividend",), "The group paid a dividend of EUR 0.42 per share for 2024."),
    (("dog",), "Dogs are allowed in the office on Fridays."),
    (("mileage",), "Use of a private car is reimbursed at EUR 0.30 per kilometre."),
    (("mature",), "Both facilities mature on 2029-06-28."),
    (("vpn",), "Company laptops must use the WireGuard VPN client."),
]


def remembered(question):
    q = question.lower()
    for keys, claim in MEMORY:
        if all(k in q for k in keys):
            return claim
    return None


class Generator:
    def __init__(self, chunks, k, min_score, min_coverage, memory):
        self.chunks = chunks
        self.bm25 = BM25(chunks)
        self.k, self.min_score, self.min_coverage, self.memory = k, min_score, min_coverage, memory

    def candidates(self, req):
        ctx = req.get("context")
        if ctx is not None:
            return [{"chunk_id": c["chunk_id"], "text": c["text"]} for c in ctx]
        principal = req.get("principal", "")
        return [c for c in self.chunks if not c.get("acl") or principal in c["acl"]]

    def best_unit(self, query, docs):
        """The unit of docs that holds the most of query (by idf), with the
        share of the query's words it holds."""
        want = set(query)
        best = None
        for rank, d in enumerate(docs):
            for s, e, ctx in units(d["text"]):
                have = set(tokens(d["text"][s:e] + " " + ctx)) & want
                score = sum(self.bm25.idf(t) for t in sorted(have)) - 0.01 * rank
                if best is None or score > best[0]:
                    best = (score, d, s, e, len(have) / max(1, len(want)))
        return best

    def answer(self, req):
        query = tokens(req["question"])
        docs = self.candidates(req)
        scored = sorted(((self.bm25.score(query, d["text"]), i, d) for i, d in enumerate(docs)), key=lambda x: (-x[0], x[1]))
        top = [d for s, i, d in scored[: self.k] if s > 0]
        retrieved = [d["chunk_id"] for d in top]
        if self.memory:
            claim = remembered(req["question"])
            if claim is not None and top:
                _, d, s, e, _ = self.best_unit(tokens(claim), top[:1])
                return self.claimed(req, retrieved, claim, d, d["text"][s:e])
        best_score = scored[0][0] if scored else 0.0
        if best_score < self.min_score or not top:
            return self.abstain(req, retrieved)
        best = self.best_unit(query, top[:2])
        if best is None or best[4] < self.min_coverage:
            return self.abstain(req, retrieved)
        _, d, s, e, _ = best
        quote = d["text"][s:e]
        return self.claimed(req, retrieved, claim_text(quote), d, quote)

    def claimed(self, req, retrieved, claim, doc, quote):
        return {
            "id": req["id"],
            "retrieved": retrieved,
            "answer": "%s [%s]" % (claim, doc["chunk_id"]),
            "claims": [{"claim_id": "c1", "text": claim, "evidence": [{"chunk_id": doc["chunk_id"], "quote": quote}]}],
            "abstained": False,
            "usage": {"calls": 1, "cost_usd": 0},
        }

    def abstain(self, req, retrieved):
        return {
            "id": req["id"],
            "retrieved": retrieved,
            "answer": "I could not find this in the documents.",
            "claims": [],
            "abstained": True,
            "usage": {"calls": 1, "cost_usd": 0},
        }


def load_chunks(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                c = json.loads(line)
                out.append({"chunk_id": c["chunk_id"], "document_id": c.get("document_id", ""), "text": c["text"], "acl": c.get("acl") or []})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", required=True, help="chunk records as `evidence chunks` writes them (JSON Lines)")
    ap.add_argument("--k", type=int, default=4, help="chunks retrieved")
    ap.add_argument("--min-score", type=float, default=4.0, help="abstain when the best chunk scores below this")
    ap.add_argument("--min-coverage", type=float, default=0.6, help="abstain when the best sentence holds a smaller share of the question's words")
    ap.add_argument("--memory", action="store_true", help="answer from memory, then cite (the probes catch it)")
    args = ap.parse_args()
    gen = Generator(load_chunks(args.chunks), args.k, args.min_score, args.min_coverage, args.memory)
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        sys.stdout.write(json.dumps(gen.answer(req), ensure_ascii=False) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
