-- wrk script for the cold mode: every request a path never asked before.
-- BENCH_PATHS names a file of paths, one a line (bench/cold.py draws them); each wrk
-- thread takes every Nth line from its own offset, so no path is sent twice.
local paths = {}
local next_index = 1
local step = 1

setup = function(thread)
  thread:set("offset", setup_count or 0)
  setup_count = (setup_count or 0) + 1
end

init = function(args)
  for line in io.lines(os.getenv("BENCH_PATHS")) do
    paths[#paths + 1] = line
  end
  step = tonumber(os.getenv("BENCH_THREADS") or "2")
  next_index = 1 + (offset or 0)
end

request = function()
  local path = paths[next_index]
  next_index = next_index + step
  if next_index > #paths then next_index = 1 + (offset or 0) end  -- only past the budget
  return wrk.format("GET", path, nil, nil)
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "duration_us": %d, "errors": %d, "status_errors": %d, "p50_us": %d, "p99_us": %d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99)))
end
