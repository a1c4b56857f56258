// langchain-split-md.mjs: the peer of Markdown ingest. It only splits: each
// file is read and cut by LangChain JS's MarkdownTextSplitter (chunk size
// 1000, overlap 150, in UTF-16 code units as LangChain counts), nothing is
// hashed, validated or written. Run it through langchain-split-bench.sh,
// which installs the pinned npm packages into corpus/.npm first:
//
//   LANGCHAIN_NPM_DIR=corpus/.npm node corpus/langchain-split-md.mjs FILE...
//
// It prints the files, bytes and chunks it saw.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";

const require = createRequire(join(process.env.LANGCHAIN_NPM_DIR ?? ".npm", "package.json"));
const { MarkdownTextSplitter } = require("@langchain/textsplitters");

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node langchain-split-md.mjs FILE...");
  process.exit(2);
}
const splitter = new MarkdownTextSplitter({ chunkSize: 1000, chunkOverlap: 150 });
let bytes = 0, chunks = 0;
for (const file of files) {
  const buf = readFileSync(file);
  bytes += buf.length;
  chunks += (await splitter.splitText(buf.toString("utf8"))).length;
}
console.log(`${files.length} files, ${bytes} bytes, ${chunks} chunks`);
