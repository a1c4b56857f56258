-- wrk script for corpus/load-test.sh: GET /v1/chunks/{chunk_id} for chunk
-- ids drawn at random from the file named by EVIDENCE_IDS (one a line).
local ids = {}
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
  for line in io.lines(os.getenv("EVIDENCE_IDS")) do
    ids[#ids + 1] = line
  end
  math.randomseed(os.time() + math.floor(os.clock() * 1e6))
end

function request()
  return wrk.format("GET", "/v1/chunks/" .. ids[math.random(#ids)])
end
