-- wrk reporting script: one JSON line with what bench/run.py needs.
-- BENCH_METHOD, BENCH_BODY and BENCH_AUTH come from the environment.
local method = os.getenv("BENCH_METHOD") or "GET"
local body = os.getenv("BENCH_BODY")
local auth = os.getenv("BENCH_AUTH")
local counter = 0

request = function()
  local headers = {}
  if auth then headers["Authorization"] = auth end
  if body then
    headers["Content-Type"] = "application/json"
    counter = counter + 1
    local unique = string.gsub(body, "{n}", tostring(counter) .. "-" .. tostring(math.random(1, 1000000000)))
    return wrk.format(method, nil, headers, unique)
  end
  return wrk.format(method, nil, headers, nil)
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "duration_us": %d, "errors": %d, "status_errors": %d, "p50_us": %d, "p99_us": %d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99)))
end
