-- The CPU profiles: duration, nodes and sample runs.
SELECT id, (end_time - start_time) / 1e6 AS duration_ms, node_count, sample_count
FROM js_cpu_profile ORDER BY id
