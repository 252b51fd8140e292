-- The leak trace of the representative of the five largest clusters, step by step.
SELECT c.cluster_id, p.depth, p.node_id, p.name, p.class, p.edge_type, p.edge_name
FROM (SELECT * FROM js_heap_leak_cluster ORDER BY retained_size DESC LIMIT 5) c
JOIN js_heap_leak_path p ON p.file_id = c.file_id AND p.leak_id = c.leak_id
ORDER BY c.retained_size DESC, p.depth
