-- The three counter series with the most samples, over time: ms since the trace's start
-- (absolute ns do not fit JavaScript's numbers exactly).
WITH top AS (
  SELECT filter_id FROM process_measure GROUP BY filter_id ORDER BY count(*) DESC LIMIT 3
)
SELECT f.name AS series, (m.ts - r.start_ts) / 1e6 AS ms, m.value
FROM process_measure m
JOIN process_measure_filter f ON f.id = m.filter_id
CROSS JOIN trace_range r
WHERE m.filter_id IN (SELECT filter_id FROM top)
ORDER BY m.ts
