-- Busy time per thread: the sum of its outermost synchronous slices (depth 0; async rows carry a cookie).
SELECT p.name || ' ' || p.pid AS process, t.name || ' ' || t.tid AS thread,
  count(*) AS slices, sum(c.dur) / 1e6 AS busy_ms
FROM callstack c
JOIN thread t ON t.id = c.callid
JOIN process p ON p.id = t.ipid
WHERE c.depth = 0 AND c.cookie IS NULL AND c.dur IS NOT NULL
GROUP BY c.callid ORDER BY busy_ms DESC LIMIT 20
