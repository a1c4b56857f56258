"""The helpers that build framework objects, with stand-in framework modules put in sys.modules: they
import the framework only when called, subclass the classes the frameworks document, and route through
the evidence_client objects."""

import sys
import types
import unittest

from tests import server as srv

from evidence_client import Client
from evidence_client import langchain as lc
from evidence_client import llamaindex as li
from evidence_client.claims import ParsedClaims


S: srv.Server


def setUpModule():
    global S
    S = srv.Server()


def tearDownModule():
    S.stop()


class BaseRetriever:  # langchain_core.retrievers.BaseRetriever: subclasses implement _get_relevant_documents
    def invoke(self, query):
        return self._get_relevant_documents(query, run_manager=None)


class BaseOutputParser:  # langchain_core.output_parsers.BaseOutputParser: subclasses implement parse
    pass


class PromptTemplate:  # langchain_core.prompts.PromptTemplate.from_template
    def __init__(self, template):
        self.template = template

    @classmethod
    def from_template(cls, template):
        return cls(template)

    def format(self, **kw):
        return self.template.format(**kw)


class BaseNodePostprocessor:  # llama_index.core.postprocessor.types: subclasses implement _postprocess_nodes
    def postprocess_nodes(self, nodes, query_bundle=None):
        return self._postprocess_nodes(nodes, query_bundle)


def install(name, **attrs):
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        sys.modules.setdefault(".".join(parts[:i]), types.ModuleType(".".join(parts[:i])))
    for k, v in attrs.items():
        setattr(sys.modules[name], k, v)


class Doc:
    def __init__(self, page_content, metadata=None, id=None):
        self.page_content, self.metadata, self.id = page_content, metadata or {}, id


class FrameworkObjectsTest(unittest.TestCase):
    def setUp(self):
        self.saved = dict(sys.modules)
        install("langchain_core.retrievers", BaseRetriever=BaseRetriever)
        install("langchain_core.output_parsers", BaseOutputParser=BaseOutputParser)
        install("langchain_core.prompts", PromptTemplate=PromptTemplate)
        install("llama_index.core.postprocessor.types", BaseNodePostprocessor=BaseNodePostprocessor)

    def tearDown(self):
        for k in set(sys.modules) - set(self.saved):
            del sys.modules[k]

    def test_retriever(self):
        class Base:
            def invoke(self, q):
                return [Doc("a", id="x"), Doc("b", id="y")]

        r = lc.to_langchain_retriever(lc.EvidenceRetriever(Base(), {"x": "v-0"}))
        self.assertIsInstance(r, BaseRetriever)
        got = r.invoke("q")
        self.assertEqual([d.metadata["chunk_id"] for d in got], ["v-0"])

    def test_prompt_and_parser(self):
        p = lc.to_langchain_prompt()
        self.assertIn("[v-0] text", p.format(question="q", context="[v-0] text"))
        parser = lc.to_langchain_output_parser(["v-0"])
        self.assertIsInstance(parser, BaseOutputParser)
        out = parser.parse("{'claims': [{'text': 'a', 'evidence': ['v-1']}]}")
        self.assertIsInstance(out, ParsedClaims)
        self.assertEqual(out.unknown_chunk_ids, ["v-1"])
        self.assertIn("chunk_id", parser.get_format_instructions())

    def test_postprocessor(self):
        c = Client(S.url)
        c.ingest(srv.sample("expense-policy.md"), document_id="fw/expense.md")
        served = next(c.iter_chunks("fw/expense.md")).chunk_id
        node = lambda cid: types.SimpleNamespace(node=types.SimpleNamespace(metadata={"chunk_id": cid}, node_id=cid))  # noqa: E731
        p = li.to_llamaindex_postprocessor(li.EvidencePostprocessor(c))
        self.assertIsInstance(p, BaseNodePostprocessor)
        kept = p.postprocess_nodes([node(served), node(served[:-1] + "999")])
        self.assertEqual([n.node.metadata["chunk_id"] for n in kept], [served])


if __name__ == "__main__":
    unittest.main()
