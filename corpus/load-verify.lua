-- wrk script for corpus/load-test.sh: POST the verification request in the
-- file named by EVIDENCE_VERIFY_BODY to EVIDENCE_VERIFY_PATH (default
-- /v1/verify?trace=false).
local body
local path
-- EVIDENCE_PAUSE_MS, if set, is a pause in milliseconds after each response
-- on each connection: with -c C it holds the rate near C*1000/(pause+latency)
-- requests a second (wrk has no rate flag; wrk2 is not in Debian). It is
-- read when the script loads, because wrk decides then whether to pause.
local pause = tonumber(os.getenv("EVIDENCE_PAUSE_MS") or "0")
if pause > 0 then
  function delay()
    return pause
  end
end

function init(args)
  local f = assert(io.open(os.getenv("EVIDENCE_VERIFY_BODY"), "rb"))
  body = f:read("*a")
  f:close()
  path = os.getenv("EVIDENCE_VERIFY_PATH") or "/v1/verify?trace=false"
end

function request()
  return wrk.format("POST", path, {["Content-Type"] = "application/json"}, body)
end
