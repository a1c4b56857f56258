#!/usr/bin/env python3
"""An example generator for `evidence eval run` that asks an OpenAI-compatible
chat completions endpoint (docs/eval.md#the-openai-compatible-generator).

It speaks the generator protocol (one JSON request a line on stdin, one JSON
answer a line on stdout), retrieves with the BM25 of bm25_generator.py over
the chunks `evidence chunks` exports (or takes a probe's `context`), and asks
the model to answer only from those passages, as JSON claims that quote them.
The answer's usage carries one call and its cost from the tokens the endpoint
reports and --price-in / --price-out (US dollars per million tokens), so that
--max-cost-usd can stop a run. A failed call is answered with an "error", never
a crash: the harness records it against the question and goes on.

The API key is read from OPENAI_API_KEY, never from the command line. The base
URL is --base-url, else OPENAI_BASE_URL, else https://api.openai.com/v1.

Python 3 standard library only.
"""

import argparse
import json
import os
import re
import sys
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bm25_generator  # noqa: E402  (retrieval is the deterministic generator's)

SYSTEM = """You answer questions about company documents using only the numbered passages given.
Reply with one JSON object and nothing else:
{"abstained": false, "claims": [{"text": "<one factual statement>", "chunk_id": "<id of the passage that says it>", "quote": "<words copied exactly from that passage>"}]}
Every claim must be stated by the passage it cites, and its quote must be copied character for character.
If the passages do not answer the question, reply {"abstained": true, "claims": []}."""


def prompt(question, docs):
    parts = ["Question: " + question, "", "Passages:"]
    for d in docs:
        parts.append("[%s]" % d["chunk_id"])
        parts.append(d["text"])
        parts.append("")
    return "\n".join(parts)


def content_json(text):
    """The JSON object of a model's reply, tolerating a Markdown code fence."""
    t = text.strip()
    m = re.match(r"^```(?:json)?\s*(.*?)\s*```$", t, re.S)
    if m:
        t = m.group(1)
    return json.loads(t)


class Chat:
    def __init__(self, args):
        self.url = (args.base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1").rstrip("/") + "/chat/completions"
        self.key = os.environ.get("OPENAI_API_KEY", "")
        self.model, self.timeout, self.json_mode = args.model, args.timeout, not args.no_json_mode
        self.price_in, self.price_out, self.max_tokens = args.price_in, args.price_out, args.max_tokens

    def ask(self, question, docs):
        body = {
            "model": self.model,
            "temperature": 0,
            "max_tokens": self.max_tokens,
            "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt(question, docs)}],
        }
        if self.json_mode:
            body["response_format"] = {"type": "json_object"}
        headers = {"Content-Type": "application/json"}
        if self.key:
            headers["Authorization"] = "Bearer " + self.key
        req = urllib.request.Request(self.url, data=json.dumps(body).encode(), headers=headers, method="POST")
        with urllib.request.urlopen(req, timeout=self.timeout) as resp:
            out = json.loads(resp.read().decode("utf-8"))
        usage = out.get("usage") or {}
        cost = usage.get("prompt_tokens", 0) * self.price_in / 1e6 + usage.get("completion_tokens", 0) * self.price_out / 1e6
        return content_json(out["choices"][0]["message"]["content"]), cost


def answer(gen, chat, req):
    query = bm25_generator.tokens(req["question"])
    docs = gen.candidates(req)
    scored = sorted(((gen.bm25.score(query, d["text"]), i, d) for i, d in enumerate(docs)), key=lambda x: (-x[0], x[1]))
    top = [d for s, i, d in scored[: gen.k] if s > 0]
    retrieved = [d["chunk_id"] for d in top]
    out = {"id": req["id"], "retrieved": retrieved, "claims": [], "abstained": False, "usage": {"calls": 1, "cost_usd": 0}}
    if not top:
        out.update(abstained=True, answer="I could not find this in the documents.", usage={"calls": 0, "cost_usd": 0})
        return out
    try:
        reply, cost = chat.ask(req["question"], top)
    except (urllib.error.URLError, OSError, ValueError, KeyError, IndexError, TypeError) as e:
        out["error"] = "chat endpoint: %s: %s" % (type(e).__name__, e)
        return out
    out["usage"]["cost_usd"] = round(cost, 8)
    claims = reply.get("claims") if isinstance(reply, dict) else None
    if not isinstance(claims, list):
        claims = []
    if not isinstance(reply, dict) or reply.get("abstained") or not claims:
        out.update(abstained=True, answer="I could not find this in the documents.")
        return out
    prose = []
    for n, c in enumerate(claims, 1):
        if not isinstance(c, dict) or not c.get("text") or not c.get("chunk_id"):
            continue
        ev = {"chunk_id": str(c["chunk_id"])}
        if c.get("quote"):
            ev["quote"] = str(c["quote"])
        out["claims"].append({"claim_id": "c%d" % n, "text": str(c["text"]), "evidence": [ev]})
        prose.append("%s [%s]" % (str(c["text"]).strip(), ev["chunk_id"]))
    if not out["claims"]:
        out.update(abstained=True, answer="I could not find this in the documents.")
        return out
    out["answer"] = " ".join(prose)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", required=True, help="chunk records as `evidence chunks` writes them (JSON Lines)")
    ap.add_argument("--model", required=True, help="model name sent to the endpoint")
    ap.add_argument("--base-url", default="", help="endpoint base URL (default: OPENAI_BASE_URL, else https://api.openai.com/v1)")
    ap.add_argument("--k", type=int, default=4, help="passages sent")
    ap.add_argument("--timeout", type=float, default=60, help="seconds one call may take")
    ap.add_argument("--max-tokens", type=int, default=512)
    ap.add_argument("--price-in", type=float, default=0, help="US dollars per million prompt tokens")
    ap.add_argument("--price-out", type=float, default=0, help="US dollars per million completion tokens")
    ap.add_argument("--no-json-mode", action="store_true", help="do not send response_format (for endpoints that refuse it)")
    args = ap.parse_args()
    gen = bm25_generator.Generator(bm25_generator.load_chunks(args.chunks), args.k, 0, 0, False)
    chat = Chat(args)
    for line in sys.stdin:
        if not line.strip():
            continue
        sys.stdout.write(json.dumps(answer(gen, chat, json.loads(line)), ensure_ascii=False) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
