// A real `evidence serve` for the tests: $EVIDENCE_BIN, or built once with `go build`; a random loopback
// port, its own store in a temporary directory; stopped by its pid.
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const SERVICE = "svc-0123456789abcdef-token";
export const ALICE = "alice-0123456789abcdef-token";

let bin;
function binary() {
  if (bin) return bin;
  if (process.env.EVIDENCE_BIN) return (bin = resolve(process.env.EVIDENCE_BIN));
  const dir = mkdtempSync(join(tmpdir(), "evidence-bin-"));
  bin = join(dir, "evidence");
  execFileSync(process.env.GO ?? "go", ["build", "-o", bin, "./cmd/evidence"], { cwd: ROOT, stdio: "inherit" });
  return bin;
}

export function sample(name) {
  return readFileSync(join(ROOT, "corpus", "sample", name));
}

export async function startServer({ tokens = false, args = [] } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "evidence-test-"));
  const argv = ["--db", join(dir, "test.db"), "serve", "--addr", "127.0.0.1:0", "--viewer-key", join(dir, "viewer.key")];
  if (tokens) {
    writeFileSync(join(dir, "tokens"), `${SERVICE} service\n${ALICE} alice@example.com\n`);
    argv.push("--tokens", join(dir, "tokens"));
  }
  const proc = spawn(binary(), [...argv, ...args], { stdio: ["ignore", "ignore", "pipe"] });
  const url = await new Promise((ok, fail) => {
    let log = "";
    const timer = setTimeout(() => fail(new Error("evidence serve did not start:\n" + log)), 30_000);
    proc.stderr.setEncoding("utf8");
    proc.stderr.on("data", (s) => {
      log += s;
      const m = /serving (http:\/\/127\.0\.0\.1:\d+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    });
    proc.on("exit", (code) => fail(new Error(`evidence serve exited ${code}:\n${log}`)));
  });
  return {
    url,
    async stop() {
      if (proc.exitCode === null) {
        const done = new Promise((ok) => proc.on("exit", ok));
        process.kill(proc.pid, "SIGTERM");
        await done;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
