// Package faults is the fault campaign: it runs the built evidence binary as
// an outside tester would, in real processes on loopback, and breaks them.
//
// TestKillCampaign kills ingest, rebuild, delete and serve (uploads and
// verifications, with sync and async trace writes) with SIGKILL at random
// points and checks after every kill that:
//
//   - `evidence audit` exits 0 (clean);
//   - no acknowledged write is lost: an ingest or rebuild that printed its
//     result has those versions current, a delete that exited 0 has its
//     document deleted, an upload answered 201 has its version stored, a
//     trace whose id was returned under sync writes is stored, and under
//     async writes every trace not stored is within the bound of
//     docs/traces.md (two groups, each acknowledged within one
//     --trace-flush interval, each at most --trace-batch traces);
//   - no half version is visible: every version listed has all its chunks,
//     and each resolves to its span.
//
// TestDiskFull runs ingest, uploads and async-trace verifications on a
// small tmpfs until the disk is full (skipped, saying why, where tmpfs
// cannot be mounted): a clear error, a clean audit, nothing acknowledged
// lost, and trace writes back once there is room.
//
// By default the campaign is short (EVIDENCE_FAULT_KILLS=50 kills, about a
// minute on two cores); `make faults` runs it, and
// `EVIDENCE_FAULT_KILLS=1000 make faults` is the long run.
// EVIDENCE_FAULT_SEED replays a campaign; EVIDENCE_BIN tests a binary
// built elsewhere (an older release, for before-and-after figures) instead
// of building ./cmd/evidence. The package has no code but its tests.
package faults
