-- The trace's time range and size.
SELECT (end_ts - start_ts) / 1e6 AS duration_ms,
  (SELECT count(*) FROM callstack) AS slices,
  (SELECT count(*) FROM thread) - 1 AS threads,
  (SELECT count(*) FROM process) - 1 AS processes
FROM trace_range
