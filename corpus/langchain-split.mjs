// langchain-split.mjs: run LangChain's RecursiveCharacterTextSplitter over
// documents and write their chunk manifests (JSON Lines, LangChain's Python
// Document shape), as a pipeline built on LangChain would export them.
//
// Run it through langchain-split.sh, which installs the pinned npm packages
// into corpus/.npm (git-ignored) first:
//
//   corpus/langchain-split.sh [--pages split|pypdf|whole] [--page-base 0|1] [--suffix S] OUT_DIR FILE...
//
// A .txt file with form feeds is paged; --pages says how its pages reach
// the splitter:
//   split (default): one Document per page, as LangChain's PDF loaders make
//     them; start_index relative to the page.
//   pypdf: the same, but each page's text stripped first (Python's
//     str.strip), as PyPDFLoader does, so start_index counts from the page's
//     first non-space character; metadata also carries page_label (the page
//     number from 1, what pypdf reports where a PDF defines no labels) and
//     total_pages.
//   whole: the whole text is one Document, so start_index counts from the
//     start of the document, and metadata.page is set afterwards to the page
//     that holds the chunk's start, as pipelines that split whole texts do.
// metadata.page counts from --page-base (0, LangChain's loaders; default).
// Other files are one Document each. The manifest is written to
// OUT_DIR/NAME.langchain.jsonl, or OUT_DIR/NAME.S.jsonl with --suffix S. LangChain.js has no addStartIndex, so start_index is
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

const args = process.argv.slice(2);
let pages = "split", pageBase = 0, suffix = "langchain";
while (args.length > 0 && args[0].startsWith("--")) {
  const [flag, value] = args.splice(0, 2);
  if (flag === "--pages" && ["split", "pypdf", "whole"].includes(value)) pages = value;
  else if (flag === "--page-base" && (value === "0" || value === "1")) pageBase = Number(value);
  else if (flag === "--suffix" && value) suffix = value;
  else {
    console.error(`bad flag ${flag} ${value ?? ""}`);
    process.exit(2);
  }
}
const [outDir, ...files] = args;
if (!outDir || files.length === 0) {
  console.error("usage: node langchain-split.mjs [--pages split|pypdf|whole] [--page-base 0|1] [--suffix S] OUT_DIR FILE...");
  process.exit(2);
}
// Python's str.isspace, for str.strip.
const pySpace = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;
const pyStrip = (s) => {
  const cs = [...s];
  let i = 0, j = cs.length;
  while (i < j && pySpace.test(cs[i])) i++;
  while (j > i && pySpace.test(cs[j - 1])) j--;
  return cs.slice(i, j).join("");
};
const chunkSize = 500, chunkOverlap = 100;
const splitter = new RecursiveCharacterTextSplitter({ chunkSize, chunkOverlap });
const codePoints = (s) => { let n = 0; for (const _ of s) n++; return n; };

mkdirSync(outDir, { recursive: true });
for (const file of files) {
  const text = readFileSync(file, "utf8");
  const paged = file.endsWith(".txt") && text.includes("\f");
  const pageTexts = paged ? text.split("\f") : [text];
  let docs = [{ text }];
  if (paged && pages === "split") docs = pageTexts.map((t, i) => ({ text: t, page: i }));
  if (paged && pages === "pypdf") docs = pageTexts.map((t, i) => ({ text: pyStrip(t), page: i }));
  // Code-point offset of each page start in the whole text, for --pages whole.
  const pageStarts = [];
  for (let i = 0, at = 0; i < pageTexts.length; i++) {
    pageStarts.push(at);
    at += codePoints(pageTexts[i]) + 1;
  }
  const pageAt = (cp) => {
    let p = 0;
    while (p + 1 < pageStarts.length && pageStarts[p + 1] <= cp) p++;
    return p;
  };
  const lines = [];
  for (const doc of docs) {
    let index = 0, previousLen = 0;
    for (const chunk of await splitter.splitText(doc.text)) {
      const offset = index + previousLen - chunkOverlap;
      index = doc.text.indexOf(chunk, Math.max(0, offset));
      previousLen = chunk.length;
      const start = index < 0 ? -1 : codePoints(doc.text.slice(0, index));
      const metadata = { source: basename(file), start_index: start };
      if (paged && pages !== "whole") metadata.page = doc.page + pageBase;
      if (paged && pages === "whole" && start >= 0) metadata.page = pageAt(start) + pageBase;
      if (paged && pages === "pypdf") {
        metadata.page_label = String(doc.page + 1);
        metadata.total_pages = pageTexts.length;
      }
      lines.push(JSON.stringify({ page_content: chunk, metadata, type: "Document" }));
    }
  }
  const out = join(outDir, basename(file) + "." + suffix + ".jsonl");
  writeFileSync(out, lines.join("\n") + "\n");
  console.log(`${out}: ${lines.length} chunks`);
}
