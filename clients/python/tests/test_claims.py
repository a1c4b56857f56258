"""The claims prompt and parser: each near miss a model makes, repaired, and what is not repaired."""

import json
import unittest

from evidence_client import VerifyRequest
from evidence_client.claims import (
    CLAIMS_PROMPT,
    ClaimsParseError,
    build_prompt,
    parse_claims,
    repair_json,
)

CLEAN = {"answer": "Reports are due in 14 days.", "claims": [
    {"claim_id": "c1", "text": "Reports are due within 14 calendar days.",
     "evidence": [{"chunk_id": "v1-0", "quote": "within 14 calendar days"}]}]}


class ParseTest(unittest.TestCase):
    def check(self, reply, repairs):
        p = parse_claims(reply, ["v1-0"])
        self.assertEqual(p.repairs, repairs)
        self.assertEqual(p.answer, CLEAN["answer"])
        self.assertEqual([(c.claim_id, c.text) for c in p.claims], [("c1", "Reports are due within 14 calendar days.")])
        self.assertEqual([(e.chunk_id, e.quote) for e in p.claims[0].evidence], [("v1-0", "within 14 calendar days")])
        self.assertEqual(p.unknown_chunk_ids, [])
        return p

    def test_clean(self):
        self.check(json.dumps(CLEAN), [])

    def test_code_fence_and_prose(self):
        self.check("Here you are:\n```json\n" + json.dumps(CLEAN, indent=2) + "\n```\nAnything else?", ["code_fence"])
        self.check("Sure. " + json.dumps(CLEAN) + " Done.", ["surrounding_text"])

    def test_trailing_commas(self):
        s = json.dumps(CLEAN).replace("}]}]", "},],},],")
        self.check(s, ["trailing_comma"])

    def test_single_quotes(self):
        reply = ("{'answer': 'Reports are due in 14 days.', 'claims': [{'claim_id': 'c1', "
                 "'text': 'Reports are due within 14 calendar days.', "
                 "'evidence': [{'chunk_id': 'v1-0', 'quote': 'within 14 calendar days'}]}]}")
        self.check(reply, ["single_quotes"])
        # an apostrophe inside a single-quoted string stays in the string
        p = parse_claims("{'claims': [{'text': 'The group's policy applies.', 'evidence': ['v1-0']}]}")
        self.assertEqual(p.claims[0].text, "The group's policy applies.")
        self.assertEqual(p.claims[0].claim_id, "c1")
        self.assertEqual(p.claims[0].evidence[0].chunk_id, "v1-0")
        # a double quote inside a single-quoted string is escaped
        p = parse_claims("""{'claims': [{'text': 'It says "14 days".', 'evidence': []}]}""")
        self.assertEqual(p.claims[0].text, 'It says "14 days".')

    def test_python_literals_and_typographic_quotes(self):
        s = json.dumps(dict(CLEAN, done=True, why=None)).replace("true", "True").replace("null", "None")
        self.check(s, ["python_literals"])
        s = json.dumps(CLEAN).replace('"', "\u201c", 1).replace('answer"', "answer\u201d", 1)
        self.check(s, ["typographic_quotes"])

    def test_everything_at_once(self):
        reply = ("Answer:\n```\n{'answer': 'Reports are due in 14 days.', 'claims': [{'claim_id': 'c1', "
                 "'text': 'Reports are due within 14 calendar days.', 'evidence': [{'chunk_id': '[v1-0]', "
                 "'quote': 'within 14 calendar days',},],},], 'final': True}\n```")
        self.check(reply, ["code_fence", "single_quotes", "trailing_comma", "python_literals"])

    def test_strings_are_not_rewritten(self):
        # commas, brackets, True and quotes inside strings are text, not syntax
        claim = "True, the limit [per trip] is 'EUR 120', }"
        p = parse_claims(json.dumps({"claims": [{"text": claim, "evidence": [{"chunk_id": "v1-0", "quote": claim}]}]}) + ",")
        self.assertEqual(p.claims[0].text, claim)
        self.assertEqual(p.claims[0].evidence[0].quote, claim)

    def test_unknown_ids_are_kept(self):
        p = parse_claims(json.dumps(CLEAN).replace("v1-0", "v9-9"), ["v1-0"])
        self.assertEqual(p.unknown_chunk_ids, ["v9-9"])
        self.assertEqual(p.claims[0].evidence[0].chunk_id, "v9-9")

    def test_shapes(self):
        p = parse_claims(json.dumps(CLEAN["claims"]))  # a bare list
        self.assertEqual(len(p.claims), 1)
        p = parse_claims(json.dumps({"claims": [{"text": "a", "citations": "v1-0"}, {"text": "b"}, {"text": "c", "claim_id": "c1"}]}))
        self.assertEqual([c.claim_id for c in p.claims], ["c1", "c2", "c1'"])  # unique ids
        self.assertEqual(p.claims[0].evidence[0].chunk_id, "v1-0")
        self.assertEqual(p.claims[1].evidence, [])
        self.assertEqual(parse_claims('{"answer": "", "claims": []}').claims, [])

    def test_errors(self):
        for reply, want in [("I cannot answer that.", "no JSON object"),
                            ('{"claims": [{"evidence": []}]}', "claim 1 has no text"),
                            ('{"claims": [{"text": "a", "evidence": [{"quote": "q"}]}]}', "claim 1 evidence 1 has no chunk_id"),
                            ('{"claims": "none"}', "not an object with a claims list"),
                            ('{"claims": [{"text": "a"}', "no JSON object")]:
            with self.assertRaises(ClaimsParseError) as cm:
                parse_claims(reply)
            self.assertIn(want, str(cm.exception))
            self.assertEqual(cm.exception.text, reply)

    def test_request(self):
        req = parse_claims(json.dumps(CLEAN)).request(["v1-0", "v1-1"], request_id="r", principal="p", metadata={"m": 1})
        self.assertIsInstance(req, VerifyRequest)
        d = req.to_dict()
        self.assertEqual(d["retrieved"], ["v1-0", "v1-1"])
        self.assertEqual(d["claims"][0]["evidence"], [{"chunk_id": "v1-0", "quote": "within 14 calendar days"}])
        self.assertEqual((d["request_id"], d["principal"], d["metadata"], d["answer"]), ("r", "p", {"m": 1}, CLEAN["answer"]))

    def test_repair_json_reports(self):
        s, repairs = repair_json("```json\n[1, 2,]\n```")
        self.assertEqual((json.loads(s), repairs), ([1, 2], ["code_fence", "trailing_comma"]))


class PromptTest(unittest.TestCase):
    def test_prompt(self):
        p = build_prompt("When are reports due?", [("v1-0", " Submit within 14 days. "), ("v1-1", "Receipts.")])
        self.assertIn("[v1-0] Submit within 14 days.\n\n[v1-1] Receipts.", p)
        self.assertIn("Question: When are reports due?", p)
        self.assertIn('{"answer":', p)  # the JSON shape survives str.format
        self.assertNotIn("{context}", p)
        self.assertIn("{context}", CLAIMS_PROMPT)


if __name__ == "__main__":
    unittest.main()
