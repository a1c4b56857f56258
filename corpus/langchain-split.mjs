// langchain-split.mjs: run LangChain's RecursiveCharacterTextSplitter over
// documents and write their chunk manifests (JSON Lines, LangChain's Python
// Document shape), as a pipeline built on LangChain would export them.
//
// Run it through langchain-split.sh, which installs the pinned npm packages
// into corpus/.npm (git-ignored) first:
//
//   corpus/langchain-split.sh OUT_DIR FILE...
//
// A .txt file with form feeds is split page by page, like LangChain's PDF
// loaders (PyPDFLoader) do: one Document per page, metadata.page counted
// from 0, and start_index relative to the page. Other files are one
// Document each. LangChain.js has no addStartIndex, so start_index is
// computed the way langchain-python's add_start_index does
// (text.find(chunk, max(0, previous_start + previous_len - overlap))),
// then converted from UTF-16 code units to code points, the unit of
// Python's str and of our offsets. Chunk size 500, overlap 100.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { createRequire } from "node:module";

// The packages live in corpus/.npm (see langchain-split.sh), not beside the script.
const require = createRequire(join(process.env.LANGCHAIN_NPM_DIR ?? ".npm", "package.json"));
const { RecursiveCharacterTextSplitter } = require("@langchain/textsplitters");

const [outDir, ...files] = process.argv.slice(2);
if (!outDir || files.length === 0) {
  console.error("usage: node langchain-split.mjs OUT_DIR FILE...");
  process.exit(2);
}
const chunkSize = 500, chunkOverlap = 100;
const splitter = new RecursiveCharacterTextSplitter({ chunkSize, chunkOverlap });
const codePoints = (s) => { let n = 0; for (const _ of s) n++; return n; };

mkdirSync(outDir, { recursive: true });
for (const file of files) {
  const text = readFileSync(file, "utf8");
  const paged = file.endsWith(".txt") && text.includes("\f");
  const docs = paged ? text.split("\f").map((t, i) => ({ text: t, page: i })) : [{ text }];
  const lines = [];
  for (const doc of docs) {
    let index = 0, previousLen = 0;
    for (const chunk of await splitter.splitText(doc.text)) {
      const offset = index + previousLen - chunkOverlap;
      index = doc.text.indexOf(chunk, Math.max(0, offset));
      previousLen = chunk.length;
      const metadata = { source: basename(file), start_index: index < 0 ? -1 : codePoints(doc.text.slice(0, index)) };
      if (paged) metadata.page = doc.page;
      lines.push(JSON.stringify({ page_content: chunk, metadata, type: "Document" }));
    }
  }
  const out = join(outDir, basename(file) + ".langchain.jsonl");
  writeFileSync(out, lines.join("\n") + "\n");
  console.log(`${out}: ${lines.length} chunks`);
}
