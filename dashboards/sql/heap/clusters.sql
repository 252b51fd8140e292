-- memlab's leak clusters, largest retained size first, with the trace of each representative.
SELECT cluster_id, leak_count, retained_size, leak_id, path
FROM js_heap_leak_cluster ORDER BY retained_size DESC
