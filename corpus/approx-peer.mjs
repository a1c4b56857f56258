// approx-peer.mjs: run npm approx-string-match, the fuzzy matcher of the
// Hypothesis annotation client, on the same planted quotes as
// resolve/match's Find, and print both figures side by side.
//
// The inputs (200-code-point quotes with five OCR-style errors, planted in
// generated text of 2,000 to 2,000,000 code points) and our own medians come
// from the Go test, so one run compares like with like:
//
//   go test ./resolve/match -run TestWritePeerInputs -peer-out=/tmp/peer.json
//   cd corpus && npm install --no-save approx-string-match && node approx-peer.mjs /tmp/peer.json
//
// With no argument the harness runs that go test itself into a temporary
// file; if the npm package is missing it installs it (npm install --no-save,
// pinned in package.json, into corpus/node_modules, git-ignored, never
// vendored).
//
// The peer gets the same error bound Find uses by default (one edit per
// eight code points of the quote: 25), and, in a second column, the bound
// Hypothesis passes it (min(256, quote.length / 2)). Its offsets are UTF-16
// code units; the generated texts hold no character outside the BMP, so
// they equal our code points. "found" counts quotes whose best match is the
// planted span within two code points at either end. Times are the median
// over quotes of the median of repeated runs, after warm-up; "ours warm" is a
// search of a prepared Index (the text folded once, as the verifier and
// re-anchoring keep it), "ours cold" includes preparing it.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

async function loadPeer() {
  try {
    return (await import("approx-string-match")).default;
  } catch {
    console.error("installing approx-string-match (npm install --no-save) into corpus/node_modules…");
    execFileSync("npm", ["install", "--no-save", "--no-audit", "--no-fund"], { cwd: here, stdio: ["ignore", "ignore", "inherit"] });
    return (await import("approx-string-match")).default;
  }
}

function inputsFile() {
  if (process.argv[2]) return process.argv[2];
  const file = join(mkdtempSync(join(tmpdir(), "approx-peer-")), "peer.json");
  console.error(`running the Go side: go test ./resolve/match -run TestWritePeerInputs -peer-out=${file}`);
  execFileSync("go", ["test", "-count=1", "./resolve/match", "-run", "^TestWritePeerInputs$", `-peer-out=${file}`],
    { cwd: join(here, ".."), stdio: ["ignore", "ignore", "inherit"] });
  return file;
}

function medianOf(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function timeMedian(reps, f) {
  for (let i = 0; i < 3; i++) f(); // let the JIT settle
  const ts = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    f();
    ts.push(performance.now() - t0);
  }
  return medianOf(ts);
}

// cpuMeanMS is the process's CPU time (user and system) per call of f, the
// mean over reps calls after warm-up: on a shared machine the wall-clock
// medians also count waits for a core, CPU time does not.
function cpuMeanMS(reps, f) {
  for (let i = 0; i < 3; i++) f();
  const t0 = process.cpuUsage();
  for (let i = 0; i < reps; i++) f();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000 / reps;
}

function found(matches, c) {
  if (matches.length === 0) return false;
  const best = Math.min(...matches.map((m) => m.errors));
  return matches.some((m) => m.errors === best && Math.abs(m.start - c.start) <= 2 && Math.abs(m.end - c.end) <= 2);
}

const search = await loadPeer();
const file = inputsFile();
const input = JSON.parse(readFileSync(file, "utf8"));
const pkg = JSON.parse(readFileSync(join(here, "node_modules", "approx-string-match", "package.json"), "utf8"));

const rows = [];
for (const ours of input.ours) {
  const cases = input.cases.filter((c) => c.group === ours.group);
  const peerK = [], peerHyp = [];
  let peerCPU = 0;
  let foundK = 0, foundHyp = 0;
  for (const c of cases) {
    const text = input.texts[c.text];
    const reps = Math.max(3, Math.min(200, Math.floor(2000000 / ours.size)));
    const hypK = Math.min(256, c.quote.length / 2);
    if (found(search(text, c.quote, c.max_errors), c)) foundK++;
    if (found(search(text, c.quote, hypK), c)) foundHyp++;
    peerK.push(timeMedian(reps, () => search(text, c.quote, c.max_errors)));
    peerHyp.push(timeMedian(reps, () => search(text, c.quote, hypK)));
    peerCPU += cpuMeanMS(Math.max(3, Math.floor(reps / 4)), () => search(text, c.quote, c.max_errors)) / cases.length;
  }
  rows.push({ ours, cases: cases.length, k: medianOf(cases.map((c) => c.max_errors)),
    peerK: medianOf(peerK), peerHyp: medianOf(peerHyp), peerCPU, foundK, foundHyp });
}

const ms = (x) => (x < 0.1 ? x.toFixed(4) : x < 10 ? x.toFixed(3) : x.toFixed(1)) + " ms";
const pad = (s, n) => String(s).padEnd(n);
console.log(`approx-string-match ${pkg.version} (Node ${process.version}) vs resolve/match Find, same inputs: ${file}`);
console.log(`median per 200-code-point quote with 5 OCR-style errors; the peer's bound k as ours, and as Hypothesis sets it`);
console.log([pad("group", 12), pad("size", 9), pad("k", 4), pad("ours warm", 12), pad("ours cold", 12),
  pad("peer (k)", 12), pad("peer (Hyp.)", 12), pad("warm speed-up", 14), pad("cold speed-up", 14),
  pad("cold CPU ours/peer", 26), pad("CPU speed-up", 13), pad("found ours/peer", 16)].join(""));
for (const r of rows) {
  const o = r.ours;
  console.log([pad(o.group, 12), pad(o.size, 9), pad(r.k, 4), pad(ms(o.warm_ms), 12), pad(ms(o.cold_ms), 12),
    pad(ms(r.peerK), 12), pad(ms(r.peerHyp), 12),
    pad(`${(r.peerK / o.warm_ms).toFixed(1)}x`, 14), pad(`${(r.peerK / o.cold_ms).toFixed(2)}x`, 14),
    pad(`${ms(o.cold_cpu_ms)} / ${ms(r.peerCPU)}`, 26), pad(`${(r.peerCPU / o.cold_cpu_ms).toFixed(2)}x`, 13),
    `${o.found}/${r.cases} vs ${r.foundK}/${r.cases} (Hyp. ${r.foundHyp}/${r.cases})`].join(""));
}
