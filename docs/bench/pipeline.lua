-- wrk script for bench-trace.sh: every write carries N copies of the
-- request (wrk ... -s pipeline.lua URL -- N), and wrk counts each response.
init = function(args)
  local n = tonumber(args[1]) or 1
  local batch = {}
  for i = 1, n do
    batch[i] = wrk.format()
  end
  payload = table.concat(batch)
end

request = function()
  return payload
end
